// Package enginetest runs the SQL readygap sends to Athena on DuckDB, over
// every ALB fixture and real sample, and the GoogleSQL it sends to BigQuery
// over every Google Cloud load balancer fixture and real Cloud Logging
// sample (gcpsql_test.go, with the stand-ins it names), and requires the
// reduced form they return to equal readygap's own reduction of the same
// files; loopback Athena, S3 and BigQuery servers backed by DuckDB drive
// `readygap triage --engine athena|bigquery` end to end. It is a Go
// module of its own so that DuckDB and cgo never enter readygap's module
// graph or its release binary: `go -C tools/enginetest test ./...`.
//
// DuckDB stands in for Athena's engine (Trino) with one stand-in: the
// table of raw lines (reduced.ALBTableDDL) is a DuckDB table of the same
// columns (line, day, "$path") filled from the files. The query text is
// the one readygap sends, unchanged.
package enginetest
