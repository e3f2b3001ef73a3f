package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTriageAthenaDDL requires --athena-ddl to print the table of raw lines
// over the region's folder of --alb-logs, projected by day, with the
// database and table quoted as Hive's DDL quotes them, and to make no call.
func TestTriageAthenaDDL(t *testing.T) {
	out, errOut, code := runCLI(t, "", "triage", "--alb-logs", "s3://alb-logs/prod/", "--account", "111122223333",
		"--region", "eu-west-1", "--athena-table", "logs.alb_raw", "--athena-ddl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"CREATE EXTERNAL TABLE IF NOT EXISTS `logs`.`alb_raw` (",
		"LOCATION 's3://alb-logs/prod/AWSLogs/111122223333/elasticloadbalancing/eu-west-1/'",
		"'storage.location.template' = 's3://alb-logs/prod/AWSLogs/111122223333/elasticloadbalancing/eu-west-1/${day}'",
		"'projection.day.format' = 'yyyy/MM/dd'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("DDL lacks %s:\n%s", want, out)
		}
	}
}

// TestTriageEngineUsage requires each wrong engine flag to be a usage
// error naming the flag.
func TestTriageEngineUsage(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "trino", "--alb-logs", "s3://b"}, "--engine"},
		{[]string{"--engine", "athena"}, "need --alb-logs"},
		{[]string{"--engine", "athena", "--alb-logs", "s3://b", "--max-scan", "lots"}, "--max-scan"},
		{[]string{"--engine", "athena", "--alb-logs", "s3://b", "--max-scan", "-1G"}, "--max-scan"},
		{[]string{"--engine", "athena", "--alb-logs", "s3://b", "--athena-table", "noschema"}, "--athena-table"},
		{[]string{"--engine", "athena", "--alb-logs", "s3://b", "--athena-table", `a.b"; drop`}, "--athena-table"},
		{[]string{"--alb-logs", "s3://b", "--athena-ddl"}, "needs --account and --region"},
		{[]string{"--alb-logs", "s3://b", "--athena-create-table"}, "goes with --athena-ddl"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"triage"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want a usage error saying %q", tc.args, code, errOut, tc.want)
		}
	}
}
