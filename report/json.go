package report

import (
	"encoding/json"
	"io"
)

// renderJSON writes the report as the versioned JSON contract.
func renderJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
