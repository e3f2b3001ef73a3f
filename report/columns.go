package report

import "time"

// SeriesColumns names the series columns: client-visible outcomes by kind,
// then requests whose failed attempts a retry hid.
var SeriesColumns = []string{"ok", "app_5xx", "no_backend", "refused", "unreachable", "closed", "timeout", "other", "hidden"}

// Positions of the series columns.
const (
	ColOK = iota
	ColApp
	ColNoBackend
	ColRefused
	ColUnreachable
	ColClosed
	ColTimeout
	ColOther
	ColHidden
)

// LBFailed is a row's client-visible failures the LB or proxy generated.
func LBFailed(row []int) int {
	n := 0
	for c := ColNoBackend; c <= ColOther; c++ {
		n += row[c]
	}
	return n
}

// rowsFor returns the finest rows of s that cover [from, to]: a detail part
// when one does, else the overview, with the time of its first row and its
// step. A series from an older contract without Detail still works.
func (s *Series) rowsFor(from, to time.Time) (start time.Time, step int, rows [][]int) {
	for _, p := range s.Detail {
		end := p.Start.Add(time.Duration(len(p.Values)*p.StepSeconds) * time.Second)
		if !from.Before(p.Start) && !to.After(end) && p.StepSeconds < s.StepSeconds {
			return p.Start, p.StepSeconds, p.Values
		}
	}
	return s.Start, max(s.StepSeconds, 1), s.Values
}

// end is the end of the overview's last row.
func (s *Series) end() time.Time {
	return s.Start.Add(time.Duration(len(s.Values)*max(s.StepSeconds, 1)) * time.Second)
}
