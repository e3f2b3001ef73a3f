// Package enginetest runs the SQL readygap sends to Athena on DuckDB, over
// every ALB fixture and real sample, and requires the reduced form it
// returns to equal readygap's own reduction of the same files. It is a Go
// module of its own so that DuckDB and cgo never enter readygap's module
// graph or its release binary: `go -C tools/enginetest test ./...`.
//
// DuckDB stands in for Athena's engine (Trino) with one stand-in: the
// table of raw lines (reduced.ALBTableDDL) is a DuckDB table of the same
// columns (line, day, "$path") filled from the files. The query text is
// the one readygap sends, unchanged.
package enginetest
