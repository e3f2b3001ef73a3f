package pipeline

import (
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
)

// maxLanes bounds the lanes of a report: a rollout of hundreds of pods is
// drawn whole, a cluster's thousands of backends over a day are not. The
// backends an incident names come first.
const maxLanes = 500

// beforeData is how a state whose start lies before the axis, and that no
// record of its own dates, is marked: it was already so when the data began.
const beforeData = "before the data began"

// laneState names each stage of correlate's Lifecycle as the contract does.
var laneState = map[correlate.Stage]string{
	correlate.StageStarting:    report.StateStarting,
	correlate.StageReady:       report.StateReady,
	correlate.StageLBHealthy:   report.StateLBHealthy,
	correlate.StageTerminating: report.StateTerminating,
}

// laneStates draws a backend's lifecycle (correlate's Lifecycle, the one
// the rules read) on the axis x: its stages that reach onto the axis,
// clamped to it. A backend still there when the data ends stays to the
// axis's end.
func laneStates(b *correlate.Backend, x dataAxis) []report.LaneState {
	out := []report.LaneState{}
	for _, s := range b.Lifecycle().Spans(x.Last) {
		if s.To.Before(x.First) || s.From.After(x.Last) {
			continue
		}
		st := report.LaneState{State: laneState[s.Stage], From: clampTime(utc(s.From), x.First, x.Last), To: clampTime(utc(s.To), x.First, x.Last), Inferred: s.How}
		if s.From.Before(x.First) && st.Inferred == "" {
			st.Inferred = beforeData
		}
		out = append(out, st)
	}
	return out
}
