package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources/live"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The engines `triage --engine` can push the request stream down to.
const (
	engineLocal    = "local"
	engineAthena   = "athena"
	engineBigQuery = "bigquery"
)

// engineOptions are the flags of `triage --engine`.
type engineOptions struct {
	// Engine is --engine: local (download and read the logs) or athena.
	Engine string
	// Table is --athena-table (database.table), WorkGroup and Output the
	// Athena workgroup and result location.
	Table, WorkGroup, Output string
	// MaxScan is --max-scan as given, and maxScan in bytes.
	MaxScan string
	maxScan int64
	// PrintDDL prints the table's DDL for --alb-logs and exits;
	// CreateTable runs it in Athena first.
	PrintDDL, CreateTable bool
	// BQTables are --bq-table (project.dataset.table, repeatable);
	// BQProject, BQLocation and BQEndpoint the job's project, location and
	// the API's host:port.
	BQTables                          []string
	BQProject, BQLocation, BQEndpoint string
}

// defaultAthenaTable is the table --athena-table names by default.
const defaultAthenaTable = "readygap.alb_lines"

// addEngineFlags wires the engine flags.
func addEngineFlags(f *pflag.FlagSet, o *engineOptions) {
	f.StringVar(&o.Engine, "engine", engineLocal, "where the load balancer's request logs are reduced: local (download and read them), athena (ALB: one query over --athena-table) or bigquery (Google Cloud: one query over --bq-table); see docs/fleet-scale.md")
	f.StringArrayVar(&o.BQTables, "bq-table", nil, "with --engine bigquery, a table of Google Cloud load balancer logs (repeatable): project.dataset._AllLogs (Log Analytics), a log view, or a sink's table (project.dataset.requests, or project.dataset.requests_* when date-sharded)")
	f.StringVar(&o.BQProject, "bq-project", "", "the project BigQuery runs and bills the query in (default: --project)")
	f.StringVar(&o.BQLocation, "bq-location", "", "the location of --bq-table's dataset (US, EU, a region; default: BigQuery finds it)")
	f.StringVar(&o.BQEndpoint, "bigquery-endpoint", "", "the BigQuery API host:port (plain HTTP without credentials on localhost)")
	f.StringVar(&o.Table, "athena-table", defaultAthenaTable, "the Athena table (database.table) of raw ALB log lines, as --athena-ddl prints it, or AWS's documented ALB access-log table")
	f.StringVar(&o.WorkGroup, "athena-workgroup", "", "the Athena workgroup (default: primary)")
	f.StringVar(&o.Output, "athena-output", "", "s3:// location for Athena's query results (default: the workgroup's)")
	f.StringVar(&o.MaxScan, "max-scan", "50G", "most an engine query may scan, by the size of the listed objects (a size: 50G, 1T); above it the query is not sent")
	f.BoolVar(&o.PrintDDL, "athena-ddl", false, "print the CREATE TABLE statement of --athena-table for --alb-logs (needs --account and --region) and exit")
	f.BoolVar(&o.CreateTable, "athena-create-table", false, "with --athena-ddl, also run it in Athena")
}

// check validates the engine flags.
func (o *engineOptions) check(albLogs string) error {
	switch o.Engine {
	case engineLocal, engineAthena, engineBigQuery:
	default:
		return usageError(fmt.Errorf("--engine %q: use local, athena or bigquery", o.Engine))
	}
	if o.Engine == engineBigQuery {
		if len(o.BQTables) == 0 {
			return usageError(errors.New("--engine bigquery needs --bq-table: the Log Analytics view or sink table of the load balancer's logs"))
		}
		for _, t := range o.BQTables {
			if _, _, _, err := reduced.SplitTable(t); err != nil {
				return usageError(fmt.Errorf("--bq-table %q: %w", t, err))
			}
		}
	} else if len(o.BQTables) > 0 {
		return usageError(errors.New("--bq-table goes with --engine bigquery"))
	}
	q, err := resource.ParseQuantity(o.MaxScan)
	if err != nil || q.Sign() <= 0 {
		return usageError(fmt.Errorf("--max-scan %q: give a size such as 50G or 1T", o.MaxScan))
	}
	o.maxScan = q.Value()
	if (o.Engine == engineAthena || o.PrintDDL) && albLogs == "" {
		return usageError(errors.New("--engine athena and --athena-ddl need --alb-logs: the S3 location the table reads"))
	}
	if _, err := o.quotedTable(); err != nil && (o.Engine == engineAthena || o.PrintDDL) {
		return usageError(err)
	}
	if o.CreateTable && !o.PrintDDL {
		return usageError(errors.New("--athena-create-table goes with --athena-ddl"))
	}
	return nil
}

// quotedTable returns --athena-table as the query names it: "db"."table".
func (o *engineOptions) quotedTable() (string, error) {
	db, table, ok := strings.Cut(o.Table, ".")
	if !ok || db == "" || table == "" || strings.ContainsAny(o.Table, "\"` ;") || strings.Contains(table, ".") {
		return "", fmt.Errorf("--athena-table %q: give database.table", o.Table)
	}
	return `"` + db + `"."` + table + `"`, nil
}

// athenaSource is the Athena source over the ALB logs at logs.
func (o *triageOptions) athenaSource(cfg aws.Config, logs *live.ALBLogs) *live.AthenaALB {
	table, _ := o.Engine.quotedTable()
	a := &live.AthenaALB{Client: live.NewAthenaClient(cfg), Logs: logs, Table: table, WorkGroup: o.Engine.WorkGroup,
		Output: o.Engine.Output, MaxScan: o.Engine.maxScan, Timeouts: o.Timeouts}
	if !o.Quiet {
		a.Log = func(format string, args ...any) { fmt.Fprintf(o.ErrOut, format+"\n", args...) }
	}
	return a
}

// printDDL prints the table's DDL for --alb-logs and, with
// --athena-create-table, runs it.
func (o *triageOptions) printDDL(ctx context.Context) error {
	if o.Account == "" || o.Region == "" {
		return usageError(errors.New("--athena-ddl needs --account and --region: the table reads one region's folder"))
	}
	bucket, prefix, err := live.ParseS3URL(o.ALBLogs)
	if err != nil {
		return usageError(fmt.Errorf("--alb-logs: %w", err))
	}
	loc := "s3://" + bucket + "/" + strings.TrimPrefix(strings.Trim(prefix, "/")+"/AWSLogs/", "/") + o.Account + "/elasticloadbalancing/" + o.Region
	// DDL is Hive's: it quotes names with backticks, where queries use
	// double quotes.
	db, name, _ := strings.Cut(o.Engine.Table, ".")
	ddl := reduced.ALBDDL("`"+db+"`.`"+name+"`", loc)
	fmt.Fprintln(o.Out, ddl+";")
	if !o.Engine.CreateTable {
		return nil
	}
	cfg, err := o.awsConfig(ctx)
	if err != nil {
		return err
	}
	a := o.athenaSource(cfg, nil)
	return a.Exec(ctx, ddl)
}

// bigQuerySource is the BigQuery source of the load balancer's requests.
func (o *triageOptions) bigQuerySource() *live.BigQueryGCP {
	b := &live.BigQueryGCP{Project: cmp.Or(o.Engine.BQProject, o.Project), Tables: o.Engine.BQTables, Location: o.Engine.BQLocation,
		Endpoint: o.Engine.BQEndpoint, MaxScan: o.Engine.maxScan, Timeouts: o.Timeouts}
	if !o.Quiet {
		b.Log = func(format string, args ...any) { fmt.Fprintf(o.ErrOut, format+"\n", args...) }
	}
	return b
}
