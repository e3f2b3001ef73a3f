package sources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The events of Argo Rollouts and Flagger, with the messages their
// controllers format (argo-rollouts utils/conditions/conditions.go,
// rollout/service.go, rollout/trafficrouting.go; flagger
// pkg/controller/scheduler*.go). The SwitchService messages are real:
// argoproj/argo-rollouts#1731 and #4433.
func TestRolloutEvents(t *testing.T) {
	argo := corev1.EventSource{Component: "rollouts-controller"}
	flagger := corev1.EventSource{Component: "flagger"}
	for _, c := range []struct {
		obj, reason, msg string
		src              corev1.EventSource
		want             wantEvent
		previous         string
	}{
		{"Rollout/media/vod", "SwitchService", "Switched selector for service 'vod-stitcher' from '' to 'f7cc77d48'", argo,
			wantEvent{kind: ServiceSwitched, group: "vod-stitcher", count: 1, status: "f7cc77d48", from: -1}, ""},
		{"Rollout/shop/example", "SwitchService", "Switched selector for service 'example-service-active' from '56b5dc5bc' to '7fdb8fff6b'", argo,
			wantEvent{kind: ServiceSwitched, group: "example-service-active", count: 1, status: "7fdb8fff6b", from: -1}, "56b5dc5bc"},
		{"Rollout/shop/web", "ScalingReplicaSet", "Scaled down ReplicaSet web-56b5dc5bc (revision 6) from 3 to 0", argo,
			wantEvent{kind: ScaledDown, group: "web-56b5dc5bc", count: 0, from: 3}, ""},
		{"Rollout/shop/web", "ScalingReplicaSet", "Scaled up ReplicaSet web-7fdb8fff6b (revision 7) from 0 to 3", argo,
			wantEvent{kind: ScaledUp, group: "web-7fdb8fff6b", count: 3, from: 0}, ""},
		{"Rollout/shop/web", "TrafficWeightUpdated", "Traffic weight updated to 10", argo,
			wantEvent{kind: TrafficWeight, count: 10, from: -1}, ""},
		{"Rollout/shop/web", "TrafficWeightUpdated", "Traffic weight updated from 100 to 0", argo,
			wantEvent{kind: TrafficWeight, count: 0, from: 100}, ""},
		{"Rollout/shop/web", "TrafficWeightUpdated", "Traffic weight updated from 10 to 20, additional: [{weight: 5}]", argo,
			wantEvent{kind: TrafficWeight, count: 20, from: 10}, ""},
		{"Rollout/shop/web", "RolloutStepCompleted", "Rollout step 2/4 completed (setWeight: 20)", argo,
			wantEvent{kind: RolloutStep, count: 2, status: "setWeight: 20", from: -1}, ""},
		{"Rollout/shop/web", "RolloutPaused", "Rollout is paused (CanaryPauseStep)", argo,
			wantEvent{kind: RolloutStep, count: 1, status: "CanaryPauseStep", from: -1}, ""},
		{"Rollout/shop/web", "RolloutCompleted", "Rollout completed update to revision 7 (7fdb8fff6b): Completed all 4 canary steps", argo,
			wantEvent{kind: RolloutCompleted, count: 1, from: -1}, ""},
		{"Rollout/shop/web", "RolloutAborted", "Rollout aborted update to revision 7: Metric \"success-rate\" assessed Failed", argo,
			wantEvent{kind: RolloutAborted, count: 1, from: -1}, ""},
		{"Rollout/shop/web", "AnalysisRunFailed", "Step Analysis Run 'web-7fdb8fff6b-7-2' Status New: 'Failed' Previous: 'Running'", argo,
			wantEvent{kind: RolloutStep, count: 1, from: -1}, ""},
		{"Rollout/shop/web", "TargetGroupUnverified", "Service web-active (TargetGroup arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/k8s-shop-web/1) not verified: 1/3 endpoints registered", argo,
			wantEvent{kind: RolloutStep, count: 1, from: -1}, ""},
		// Shapes that differ are kept with their reason, not guessed at.
		{"Rollout/shop/web", "SwitchService", "Switched selector for service web", argo, wantEvent{kind: LifecycleOther, count: 1, from: -1}, ""},
		{"Rollout/shop/web", "TrafficWeightUpdated", "Traffic weight updated to 99999999999999999999", argo, wantEvent{kind: LifecycleOther, count: 1, from: -1}, ""},
		// Flagger: every event is Synced.
		{"Canary/shop/web", "Synced", "Advance web.shop canary weight 10", flagger, wantEvent{kind: TrafficWeight, count: 10, from: -1}, ""},
		{"Canary/shop/web", "Synced", "Advance web.shop primary weight 60", flagger, wantEvent{kind: TrafficWeight, count: 40, from: -1}, ""},
		{"Canary/shop/web", "Synced", "Routing all traffic to primary", flagger, wantEvent{kind: TrafficWeight, count: 0, from: -1}, ""},
		{"Canary/shop/web", "Synced", "Promotion completed! Scaling down web.shop", flagger, wantEvent{kind: RolloutCompleted, count: 1, from: -1}, ""},
		{"Canary/shop/web", "Synced", "Rolling back web.shop failed checks threshold reached 5", flagger, wantEvent{kind: RolloutAborted, count: 1, from: -1}, ""},
		{"Canary/shop/web", "Synced", "Starting canary analysis for web.shop", flagger, wantEvent{kind: RolloutStep, count: 1, from: -1}, ""},
		// Synced on another kind is not Flagger's.
		{"Deployment/shop/web", "Synced", "Advance web.shop canary weight 10", flagger, wantEvent{kind: LifecycleOther, count: 1, from: -1}, ""},
	} {
		l := emitOne(t, testEvent(c.obj, c.reason, c.msg, c.src), eventTime0)
		// Count stays the occurrence count (1) where the message gives no
		// weight, size or step.
		c.want.reason, c.want.source = c.reason, c.src.Component
		checkEvent(t, l, c.want)
		if l.Previous != c.previous {
			t.Errorf("%s: previous %q, want %q", c.msg, l.Previous, c.previous)
		}
	}
}
