package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"

	"github.com/go-logfmt/logfmt"
	"github.com/readygap/readygap/sources/internal/lex"
)

// argoRollouts reads the Argo Rollouts controller's logs: logrus text
// lines (`time="…" level=info msg="…" namespace=shop rollout=web`, keys
// after msg sorted; argoproj/argo-rollouts#2050) or JSON lines
// (`--logformat json`). The controller logs each event it records with an
// `event_reason` key (utils/record/record.go): those lines give the same
// records as the event (rollout_events.go), with the controller's time. Its
// `New weights: &TrafficWeights{…}` line (rollout/trafficrouting.go) gives
// the canary weight it set. client-go's own copy of each event
// (`Event(v1.ObjectReference{…}): type: …`) and the other lines are valid
// but carry no record.
type argoRollouts struct{}

// argoSource is the Source of every record of this format.
const argoSource = "rollouts-controller"

// Format returns FormatArgoRollouts.
func (argoRollouts) Format() Format { return FormatArgoRollouts }

// Match reports whether line is a controller line: logrus text with a
// rollout key, or a JSON object with one.
func (argoRollouts) Match(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	if bytes.HasPrefix(line, []byte("{")) {
		return bytes.Contains(line, []byte(`"rollout":`)) && bytes.Contains(line, []byte(`"msg":`)) && bytes.Contains(line, []byte(`"time":`))
	}
	return bytes.HasPrefix(line, []byte(`time="`)) && bytes.Contains(line, []byte(" msg=")) && bytes.Contains(line, []byte(" rollout="))
}

// argoLine holds the keys of a controller line readygap uses.
type argoLine struct {
	Time        string `json:"time"`
	Msg         string `json:"msg"`
	Namespace   string `json:"namespace"`
	Rollout     string `json:"rollout"`
	EventReason string `json:"event_reason"`
}

// errArgoNoTime is the reason of a line without a valid time.
var errArgoNoTime = errors.New("Argo Rollouts line: no valid time")

// argoWeightsRe reads the canary weight of a `New weights:` line.
var argoWeightsRe = regexp.MustCompile(`^New weights: &TrafficWeights\{Canary:WeightDestination\{Weight:(\d+),`)

// Parse reads one controller line.
func (argoRollouts) Parse(line []byte, ln *Line, out *Emitter) error {
	var e argoLine
	if t := bytes.TrimLeft(line, " \t"); bytes.HasPrefix(t, []byte("{")) {
		if err := json.Unmarshal(t, &e); err != nil {
			return errors.New("Argo Rollouts JSON line: " + shortError(err))
		}
	} else if err := readLogfmt(t, &e); err != nil {
		return err
	}
	at, ok := lex.ParseRFC3339([]byte(e.Time))
	if !ok {
		return errArgoNoTime
	}
	// logrus stamps whole seconds: the wrapper's stamp (kubectl logs
	// --timestamps, CRI) refines one within that second.
	at = refineWithStamp(at.UTC(), ln.Stamp)
	l := Lifecycle{Time: at, Namespace: e.Namespace, Object: kubeObjectRef("Rollout", e.Rollout), Reason: e.EventReason,
		Source: argoSource, Message: e.Msg, From: -1, Format: FormatArgoRollouts, Origin: ln.Origin}
	switch {
	case e.Rollout == "":
		return nil // the controller's own business, no rollout named
	case e.EventReason != "":
		if !interpretRolloutEvent(&l, e.EventReason, e.Msg) && !(e.EventReason == reasonScalingReplicaSet && interpretArgoScaling(&l, e.Msg)) {
			return nil // an event readygap does not read
		}
	default:
		m := argoWeightsRe.FindStringSubmatch(e.Msg)
		if m == nil {
			return nil
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil
		}
		l.Kind, l.Count, l.Reason = TrafficWeight, n, "NewWeights"
	}
	if l.Kind == LifecycleOther {
		return nil // a message without the documented shape
	}
	out.Lifecycle(&l)
	return nil
}

// readLogfmt reads the keys of one logrus text line.
func readLogfmt(line []byte, e *argoLine) error {
	d := logfmt.NewDecoder(bytes.NewReader(line))
	if !d.ScanRecord() {
		return errors.New("Argo Rollouts line: empty")
	}
	for d.ScanKeyval() {
		v := string(d.Value())
		switch string(d.Key()) {
		case "time":
			e.Time = v
		case "msg":
			e.Msg = v
		case "namespace":
			e.Namespace = v
		case "rollout":
			e.Rollout = v
		case "event_reason":
			e.EventReason = v
		}
	}
	if err := d.Err(); err != nil {
		return errors.New("Argo Rollouts line: " + err.Error())
	}
	return nil
}
