package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
)

// truthPods is the part of a fixture's truth that says which pod held which
// IP when.
type truthPods struct {
	Pods []struct {
		Name   string `json:"name"`
		Leases []struct {
			IP   string     `json:"ip"`
			From time.Time  `json:"from"`
			To   *time.Time `json:"to"`
		} `json:"leases"`
	} `json:"pods"`
}

// TestNoPodInTwoLanes checks every fixture with a truth: no lane is a bare
// IP for the time a pod that has its own lane held it (the pod would be
// drawn twice, once by name and once by IP), and in the text, Markdown and
// HTML each pod with a lane is drawn once.
func TestNoPodInTwoLanes(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	if len(dirs) < 10 {
		t.Fatalf("only %d fixtures with a truth", len(dirs))
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		name := filepath.Base(dir)
		if testing.Short() && name == "eks-alb-large" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			var tr truthPods
			if err := json.Unmarshal(data, &tr); err != nil {
				t.Fatal(err)
			}
			rep := analyze(t, dir)
			laned := map[string]bool{}
			for _, l := range rep.Lanes {
				if l.Name != l.IP {
					laned[l.Name] = true
				}
			}
			for _, l := range rep.Lanes {
				if l.Name != l.IP || l.FirstServed.IsZero() {
					continue
				}
				for _, p := range tr.Pods {
					for _, ls := range p.Leases {
						end := rep.Summary.Last
						if ls.To != nil {
							end = *ls.To
						}
						// The bare lane's traffic lies within the pod's lease.
						if ls.IP == l.IP && laned[p.Name] && !l.FirstServed.Before(ls.From) && !l.LastServed.After(end) {
							t.Errorf("pod %s is drawn twice: in its own lane and as the bare IP %s (%s–%s)", p.Name, l.IP,
								l.FirstServed.Format(time.TimeOnly), l.LastServed.Format(time.TimeOnly))
						}
					}
				}
			}
			md := render(t, report.Markdown, rep)
			html := render(t, report.HTML, rep)
			text := renderTextAt(t, rep, 120)
			lanes := text[strings.Index(text, "\nLanes "):]
			if i := strings.Index(lanes, "\nInputs"); i >= 0 {
				lanes = lanes[:i]
			}
			for pod := range laned {
				// The pod's own suffix, as the text draws it under its
				// ReplicaSet's heading.
				suffix := pod[strings.LastIndexByte(pod, '-'):]
				if n := strings.Count(lanes, "…"+suffix+" ") + strings.Count(lanes, "…"+suffix+","); n > 1 {
					t.Errorf("text: pod %s drawn %d times in the lanes", pod, n)
				}
				if n := strings.Count(md, "section "+pod+" "); n > 1 {
					t.Errorf("markdown: pod %s has %d sections in the lanes chart", pod, n)
				}
				if n := strings.Count(html, "<title>"+pod); n > 1 {
					t.Errorf("html: pod %s has %d lanes", pod, n)
				}
			}
		})
	}
}

// readySlack is how far an inferred Ready time may precede the truth's:
// the scaling events it comes from are stamped to the second.
const readySlack = time.Second

// TestInferredReadyNeverBeforeTheTruth checks every fixture with a truth:
// a Ready time inferred from the Deployment's scaling (Lane.ReadyBy) is an
// upper bound, never before the pod really became Ready on the cluster's
// clock as the report shows it, and the seed
// rollouts whose Kubernetes records never say Ready (GKE, EKS without
// pod objects) draw each new pod Ready for Kubernetes before the load
// balancer called it healthy.
func TestInferredReadyNeverBeforeTheTruth(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	inferred := 0
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		if testing.Short() && filepath.Base(dir) == "eks-alb-large" {
			continue
		}
		data, err := os.ReadFile(exp)
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			// Skew is how far the cluster's clock was off the load
			// balancer's; the report's times are the cluster's unless it
			// found the offset.
			Skew float64 `json:"cluster_clock_skew_seconds"`
			Pods []struct {
				Name  string     `json:"name"`
				Ready *time.Time `json:"ready"`
			} `json:"pods"`
		}
		must(t, json.Unmarshal(data, &tr))
		ready := map[string]*time.Time{}
		for _, p := range tr.Pods {
			ready[p.Name] = p.Ready
		}
		rep := analyze(t, dir)
		skew := tr.Skew
		for _, c := range rep.Clocks {
			skew += c.OffsetSeconds
		}
		for _, l := range rep.Lanes {
			if l.ReadyBy.IsZero() {
				continue
			}
			inferred++
			if r := ready[l.Name]; r == nil || l.ReadyBy.Add(readySlack).Before(r.Add(time.Duration(skew*float64(time.Second)))) {
				t.Errorf("%s: %s inferred Ready by %s, but the truth has it Ready at %v", filepath.Base(dir), l.Name, l.ReadyBy.Format(time.TimeOnly), r)
			}
		}
	}
	if inferred < 10 {
		t.Errorf("only %d lanes with an inferred Ready time", inferred)
	}
	for _, name := range []string{"gke-neg-zone-move", "eks-alb-no-gate"} {
		for _, l := range analyze(t, fixture(name)).Lanes {
			if l.Role != "new" {
				continue
			}
			var got []string
			for _, s := range l.States {
				got = append(got, s.State)
			}
			if want := []string{report.StateStarting, report.StateReady, report.StateLBHealthy}; !slices.Equal(got, want) {
				t.Errorf("%s: %s goes through %v, want %v", name, l.Name, got, want)
			}
		}
	}
}

// TestNoIPInTwoLanes checks every fixture folder, those without a truth
// too: no bare-IP lane serves while a pod's lane holds the same IP, for
// then one pod would be drawn twice, by name and by IP.
func TestNoIPInTwoLanes(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*"))
	checked := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() || name == "gen" || name == "sim" || name == "manifests" ||
			testing.Short() && name == "eks-alb-large" {
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			rep := analyze(t, dir)
			for _, bare := range rep.Lanes {
				if bare.Name != bare.IP || bare.FirstServed.IsZero() {
					continue
				}
				for _, pod := range rep.Lanes {
					if pod.Name == pod.IP || pod.IP != bare.IP || len(pod.States) == 0 {
						continue
					}
					from, to := pod.States[0].From, pod.States[len(pod.States)-1].To
					if !bare.LastServed.Before(from) && !bare.FirstServed.After(to) {
						t.Errorf("%s serves %s–%s in its own lane while pod %s holds it (%s–%s)", bare.IP,
							bare.FirstServed.Format(time.TimeOnly), bare.LastServed.Format(time.TimeOnly), pod.Name,
							from.Format(time.TimeOnly), to.Format(time.TimeOnly))
					}
				}
			}
		})
	}
	if checked < 60 {
		t.Fatalf("checked only %d fixture folders", checked)
	}
}
