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
		{[]string{"--engine", "bigquery", "--project", "p"}, "needs --bq-table"},
		{[]string{"--engine", "bigquery", "--bq-table", "p.d.t"}, "needs --bq-project or --project"},
		{[]string{"--engine", "bigquery", "--project", "p", "--bq-table", "d.t"}, "--bq-table"},
		{[]string{"--engine", "bigquery", "--project", "p", "--bq-table", "p.d.t`; drop"}, "--bq-table"},
		{[]string{"--project", "p", "--bq-table", "p.d.t"}, "goes with --engine bigquery"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"triage"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want a usage error saying %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestTriageBigQueryDryRun requires --dry-run with --engine bigquery to
// plan the BigQuery job over the tables given, in the project given, and
// Cloud Logging to leave the request logs to it.
func TestTriageBigQueryDryRun(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	out, errOut, code := runCLI(t, "", "triage", "--engine", "bigquery", "--project", "shop-prod", "--bq-project", "billing-prj",
		"--bq-table", "shop-prod.lb_logs._AllLogs", "--since", "2026-03-25T00:00:00Z", "--until", "2026-03-25T01:00:00Z", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "bigquery-gcp-lb: bigquery: tables.get of shop-prod.lb_logs._AllLogs, a dry run, then one query in project billing-prj") {
		t.Errorf("no BigQuery plan:\n%s", out)
	}
	if strings.Contains(out, "http_load_balancer") || !strings.Contains(out, `log_id("events")`) {
		t.Errorf("Cloud Logging still asks for the request logs, or no longer for the events:\n%s", out)
	}
}
