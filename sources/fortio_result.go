package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// fortioResult reads the JSON result of the load-testing tool fortio
// (`fortio load -json FILE`; periodic.RunnerResults and
// fhttp.HTTPRunnerResults of fortio/fortio): counts per status code over
// the run (RetCodes, -1 for a socket error), its StartTime and
// ActualDuration, no time per request. It gives no record: a warning
// states its counts and span, so that the run is not silently dropped,
// and points to fortio's log (fortio.go), which times each failure.
type fortioResult struct{}

// Format returns FormatFortioResult.
func (fortioResult) Format() Format { return FormatFortioResult }

// fortioResultJSON holds the keys of a JSON result that readygap reports.
type fortioResultJSON struct {
	RunType        string           `json:"RunType"`
	StartTime      string           `json:"StartTime"`
	ActualDuration int64            `json:"ActualDuration"`
	RetCodes       map[string]int64 `json:"RetCodes"`
	URL            string           `json:"URL"`
}

// MatchJSON reports whether elem is a fortio result: it has the RunType
// and RetCodes keys.
func (fortioResult) MatchJSON(elem []byte) bool {
	return bytes.Contains(elem, []byte(`"RunType"`)) && bytes.Contains(elem, []byte(`"RetCodes"`))
}

// ParseJSON reads a result: no record, a warning with its counts.
func (fortioResult) ParseJSON(elem []byte, o Origin, out *Emitter) error {
	var res fortioResultJSON
	if err := json.Unmarshal(elem, &res); err != nil || res.RetCodes == nil {
		return errors.New("not a fortio result")
	}
	start, ok := lex.ParseRFC3339([]byte(res.StartTime))
	if !ok {
		return errors.New("fortio result with a bad StartTime")
	}
	var total int64
	codes := make([]string, 0, len(res.RetCodes))
	for c, n := range res.RetCodes {
		if _, err := strconv.Atoi(c); err != nil || n < 0 {
			return errors.New("fortio result with a RetCodes key that is no status code")
		}
		total += n
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	var counts []string
	for _, c := range codes {
		name := c
		if c == "-1" {
			name = "no response"
		}
		counts = append(counts, fmt.Sprintf("%s×%d", name, res.RetCodes[c]))
	}
	end := start.Add(time.Duration(res.ActualDuration))
	out.Warn("%s: a fortio result, counts only (%d requests from %s to %s: %s), no time per request, so no record; "+
		"fortio's log (JSON lines, one per failed request) gives each failure's time", o, total,
		start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), strings.Join(counts, ", "))
	return nil
}
