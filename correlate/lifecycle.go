package correlate

import (
	"sort"
	"time"

	"github.com/readygap/readygap/internal/words"
)

// Stage is a step of a backend's life, in the order a backend passes them:
// the lifecycle both the rules (StateAt reads when a backend began
// terminating from it) and the report's lanes (Lifecycle.Spans) read.
type Stage uint8

// The stages of a backend's life. A backend is, at any moment, in the
// furthest stage it has reached: one reported late (a Ready condition
// stamped after the load balancer's first health check passed) does not
// move it back.
const (
	// StageNone: no record says the backend had begun its life.
	StageNone Stage = iota
	// StageStarting: created, not yet Ready for Kubernetes.
	StageStarting
	// StageReady: Ready for Kubernetes, not (yet) healthy for the load
	// balancer.
	StageReady
	// StageLBHealthy: healthy for the load balancer, serving.
	StageLBHealthy
	// StageTerminating: terminating, or deregistered from the load balancer.
	StageTerminating
	stageCount
)

var stageNames = [...]string{"none", "starting", "ready", "lb_healthy", "terminating"}

// String names the stage as the JSON contract's lane states do.
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "unknown"
}

// How a stage's start or a backend's end was found when no record of its
// own says so (Reach.How).
const (
	// HowReadyBy: no record shows the pod Ready; its Deployment scaled the
	// old pods down, which it does only once the new ones are (ReadyBy).
	HowReadyBy = "Ready by then at the latest: the Deployment scaled the old pods down"
	// HowFirstServed: no record shows the load balancer's health check
	// passing; the backend's first response does.
	HowFirstServed = "first served"
	// HowDeregistered: no record shows the pod terminating; the load
	// balancer deregistered it.
	HowDeregistered = "deregistered from the load balancer"
	// HowLastRequest: no record shows the pod deleted; the last request
	// sent to it, its deregistration or its termination, the latest.
	HowLastRequest = "its last request, deregistration or termination"
	// HowLastServed: a bare IP the request logs alone knew ends with its
	// last response.
	HowLastServed = "last served"
)

// Reach is when a backend reached a stage, or was gone, and how that was
// found: How is "" when a record of that very step says so, else one of
// the How constants. A zero Time: nothing says.
type Reach struct {
	Time time.Time
	How  string
}

// Lifecycle is a backend's life stage by stage: when it reached each stage
// and when it was gone, each with how it was found.
type Lifecycle struct {
	// Reached holds, by Stage, when the backend reached it.
	Reached [stageCount]Reach
	// Gone is when the backend was gone: deleted; a terminating pod once it
	// was deregistered and received its last request, served or failed
	// (LastSent: the load balancer may send to it after its last success);
	// a backend the request logs alone knew after its last response
	// (nothing says what it was doing when it failed after that). Zero for
	// a backend still there when the data ends.
	Gone Reach
}

// Lifecycle returns the backend's life stage by stage. It reads what the
// analysis found of it, LastSent included: call it once attribution is
// done (StateAt reads only the start of termination, which comes before).
func (b *Backend) Lifecycle() Lifecycle {
	var l Lifecycle
	for s := StageStarting; s < stageCount; s++ {
		l.Reached[s] = b.reached(s)
	}
	term := l.Reached[StageTerminating].Time
	lbOnly := l.Reached[StageStarting].Time.IsZero() && l.Reached[StageReady].Time.IsZero() && b.Pod == "" && len(b.IPs) > 0
	switch {
	case !b.At(Deleted).IsZero():
		l.Gone = Reach{Time: b.At(Deleted)}
	case !term.IsZero():
		l.Gone = Reach{words.MaxTime(words.MaxTime(term, b.LastServed), words.MaxTime(b.LastSent, b.At(LBDetached))), HowLastRequest}
	case lbOnly && !b.LastServed.IsZero():
		l.Gone = Reach{b.LastServed, HowLastServed}
	}
	return l
}

// reached returns when the backend reached stage s and how that was found:
// starting when it was created (or scheduled, or started); Ready when
// Kubernetes said so, or by when its Deployment's scaling says it must
// have been; LB-healthy when the load balancer said so, or when it served
// its first request; terminating when it began terminating, or when the
// load balancer deregistered it.
func (b *Backend) reached(s Stage) Reach {
	switch s {
	case StageStarting:
		return Reach{Time: words.FirstTime(b.At(Created), b.At(Scheduled), b.At(Started))}
	case StageReady:
		if t := b.At(Ready); !t.IsZero() || b.ReadyBy == nil {
			return Reach{Time: t}
		}
		return Reach{b.ReadyBy.Time, HowReadyBy}
	case StageLBHealthy:
		if t := b.At(LBHealthy); !t.IsZero() || b.FirstServed.IsZero() {
			return Reach{Time: t}
		}
		return Reach{b.FirstServed, HowFirstServed}
	case StageTerminating:
		if t := b.At(Terminating); !t.IsZero() || b.At(LBDetached).IsZero() {
			return Reach{Time: t}
		}
		return Reach{b.At(LBDetached), HowDeregistered}
	}
	return Reach{}
}

// Span is one stretch of a backend's life in one stage, with how its start
// was found (Reach.How).
type Span struct {
	Stage    Stage
	From, To time.Time
	How      string
}

// Spans returns the backend's consecutive stages, in time order: each from
// when the backend reached it to when it reached a further one, the last
// to when it was gone (end when it was still there when the data ended).
// A stage reached after a further one is left out: the backend was past it.
func (l Lifecycle) Spans(end time.Time) []Span {
	gone := l.Gone.Time
	if gone.IsZero() {
		gone = end
	}
	var order []Stage
	for s := StageStarting; s < stageCount; s++ {
		if !l.Reached[s].Time.IsZero() {
			order = append(order, s)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return l.Reached[order[i]].Time.Before(l.Reached[order[j]].Time) })
	var out []Span
	furthest := StageNone
	for i, s := range order {
		if s <= furthest {
			continue // an earlier stage reported late: the backend is already past it
		}
		furthest = s
		from, to := l.Reached[s].Time, gone
		for _, next := range order[i+1:] {
			if next > furthest {
				to = l.Reached[next].Time
				break
			}
		}
		if to.Before(from) {
			to = from
		}
		out = append(out, Span{Stage: s, From: from, To: to, How: l.Reached[s].How})
	}
	return out
}
