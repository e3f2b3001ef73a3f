package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/readygap/readygap/fixtures/sim"
)

// robustnessSeeds is how many seeds each scenario runs with when
// READYGAP_ROBUSTNESS is set without a number.
const robustnessSeeds = 5

// TestRobustness runs every scenario of the simulator's catalogue with
// other seeds than its fixture's and checks each run against its truth as
// TestFixtureVerdicts does, then prints the table: per scenario, the true
// incidents found, the false alarms (findings no true incident explains),
// the reports per true incident, and the runs whose verdict check failed.
// It writes hundreds of megabytes and takes minutes, so it runs only when
// READYGAP_ROBUSTNESS is set (to the number of seeds, or 1 for the
// default five); READYGAP_ROBUSTNESS_LARGE=1 adds the large scenarios,
// READYGAP_ROBUSTNESS_ONLY=a,b runs those scenarios alone, and
// READYGAP_ROBUSTNESS_VARY=1 also draws each run's rate, timings, replicas
// and date afresh (sim.Vary), so that no rule fits the catalog's numbers.
//
//	READYGAP_ROBUSTNESS=5 go test -run TestRobustness -v -timeout 60m ./classify
func TestRobustness(t *testing.T) {
	env := os.Getenv("READYGAP_ROBUSTNESS")
	if env == "" {
		t.Skip("set READYGAP_ROBUSTNESS to run every scenario over several seeds")
	}
	seeds, err := strconv.Atoi(env)
	if err != nil || seeds <= 1 {
		seeds = robustnessSeeds
	}
	large := os.Getenv("READYGAP_ROBUSTNESS_LARGE") != ""
	vary := os.Getenv("READYGAP_ROBUSTNESS_VARY") != ""
	only := map[string]bool{}
	for _, n := range strings.FieldsFunc(os.Getenv("READYGAP_ROBUSTNESS_ONLY"), func(r rune) bool { return r == ',' }) {
		only[n] = true
	}
	type row struct {
		name                       string
		runs, want, found, reports int
		falseAlarms, failedChecks  int
		problems                   []string
	}
	var rows []row
	for _, base := range sim.Catalog() {
		if (base.Large && !large) || (len(only) > 0 && !only[base.Name]) {
			continue
		}
		r := row{name: base.Name}
		for k := 1; k <= seeds; k++ {
			s := base
			s.Seed = base.Seed*1000 + uint64(k)
			if vary {
				s = sim.Vary(base, s.Seed)
			}
			dir := filepath.Join(t.TempDir(), s.Name)
			if err := sim.WriteDir(dir, sim.Simulate(s)); err != nil {
				t.Fatal(err)
			}
			tr := readTruth(t, dir)
			_, findings := analyzeDir(t, dir)
			want := dropUnreported(append([]truthIncident(nil), tr.Incidents...), findings)
			r.runs++
			r.want += len(want)
			matched := make([]bool, len(findings))
			for _, w := range want {
				n := 0
				for i, f := range findings {
					if f.Cause == w.Mechanism && !f.Window.SignalEnd.Before(w.Start.Add(-windowSlack)) && !f.Window.SignalStart.After(w.End.Add(windowSlack)) {
						matched[i] = true
						n++
					}
				}
				if n > 0 {
					r.found++
				}
				r.reports += n
			}
			for _, m := range matched {
				if !m {
					r.falseAlarms++
				}
			}
			if ps := checkVerdicts(t, dir); len(ps) > 0 {
				r.failedChecks++
				r.problems = append(r.problems, fmt.Sprintf("seed %d: %s", s.Seed, strings.Join(ps, "; ")))
			}
			os.RemoveAll(dir)
		}
		rows = append(rows, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | runs | true incidents | found | false alarms | reports per true incident | runs failing the verdict check |\n|---|---|---|---|---|---|---|\n")
	var total row
	for _, r := range rows {
		per := "–"
		if r.found > 0 {
			per = fmt.Sprintf("%.2f", float64(r.reports)/float64(r.found))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %d |\n", r.name, r.runs, r.want, r.found, r.falseAlarms, per, r.failedChecks)
		total.runs += r.runs
		total.want += r.want
		total.found += r.found
		total.reports += r.reports
		total.falseAlarms += r.falseAlarms
		total.failedChecks += r.failedChecks
	}
	per := 0.0
	if total.found > 0 {
		per = float64(total.reports) / float64(total.found)
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | %.2f | %d |\n", total.runs, total.want, total.found, total.falseAlarms, per, total.failedChecks)
	t.Log("\n" + b.String())
	for _, r := range rows {
		for _, p := range r.problems {
			t.Errorf("%s %s", r.name, p)
		}
	}
}
