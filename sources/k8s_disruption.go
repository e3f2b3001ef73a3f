package sources

import (
	"strconv"
	"strings"
)

// Event reasons of the components that remove pods outside a rollout: node
// drains (cluster-autoscaler scale-down, kubectl drain, Karpenter
// consolidation and spot interruptions, the taint manager) and
// HorizontalPodAutoscaler scale-ins. Verified against each project's event
// recorder calls:
//
//   - kubelet: NodeNotSchedulable, "Node <name> status is now: NodeNotSchedulable"
//     (on the Node, when it is cordoned);
//   - cluster-autoscaler: ScaleDown, "marked the node as
//     toBeDeleted/unschedulable" on the Node and "deleting pod for node
//     scale down" on each pod it evicts;
//   - Karpenter: DisruptionTerminating "Disrupting Node: <Reason>",
//     InstanceTerminating, InstanceStopping, SpotInterrupted and
//     TerminatingOnInterruption on the Node; Evicted "Evicted pod: <reason>",
//     Disrupted "Deleting the pod to accommodate the terminationTime ..."
//     and SpotInterrupted on pods;
//   - the AWS Node Termination Handler (with --emit-kubernetes-events), on
//     the Node: the interruption it acts on, SpotInterruption,
//     SQSTermination, ASGLifecycle or StateChange (the instance is going
//     away), then CordonAndDrain "Node successfully cordoned and drained";
//     not RebalanceRecommendation nor ScheduledEvent, after which it may
//     only cordon or drain hours later;
//   - the taint manager: TaintManagerEviction "Marking for deletion Pod <ns>/<name>";
//   - the HorizontalPodAutoscaler: SuccessfulRescale "New size: <n>; reason: <why>".
const (
	reasonNodeNotSchedulable        = "NodeNotSchedulable"
	reasonScaleDown                 = "ScaleDown"
	reasonDisruptionTerminating     = "DisruptionTerminating"
	reasonInstanceTerminating       = "InstanceTerminating"
	reasonInstanceStopping          = "InstanceStopping"
	reasonSpotInterrupted           = "SpotInterrupted"
	reasonTerminatingOnInterruption = "TerminatingOnInterruption"
	reasonNTHSpotInterruption       = "SpotInterruption"
	reasonNTHSQSTermination         = "SQSTermination"
	reasonNTHASGLifecycle           = "ASGLifecycle"
	reasonNTHStateChange            = "StateChange"
	reasonNTHCordonAndDrain         = "CordonAndDrain"
	reasonEvicted                   = "Evicted"
	reasonKarpenterDisrupted        = "Disrupted"
	reasonTaintManagerEviction      = "TaintManagerEviction"
	reasonSuccessfulRescale         = "SuccessfulRescale"
)

// interpretDisruption reads an event about a node being drained, a pod
// being evicted, or an autoscaler rescaling a workload. It reports whether
// the reason is one of them.
func interpretDisruption(l *Lifecycle, reason, msg string) bool {
	kind, name, _ := strings.Cut(l.Object, "/")
	switch reason {
	case reasonNodeNotSchedulable, reasonDisruptionTerminating, reasonInstanceTerminating, reasonInstanceStopping, reasonTerminatingOnInterruption,
		reasonNTHSpotInterruption, reasonNTHSQSTermination, reasonNTHASGLifecycle, reasonNTHStateChange, reasonNTHCordonAndDrain:
		if kind == "Node" {
			l.Kind, l.Node = NodeDraining, name
		}
	case reasonScaleDown, reasonSpotInterrupted:
		switch kind {
		case "Node":
			l.Kind, l.Node = NodeDraining, name
		case "Pod":
			l.Kind = PodEvicted
		}
	case reasonEvicted, reasonKarpenterDisrupted, reasonTaintManagerEviction:
		if kind == "Pod" {
			l.Kind = PodEvicted
		}
	case reasonSuccessfulRescale:
		size, _, ok := strings.Cut(strings.TrimPrefix(msg, "New size: "), ";")
		if n, err := strconv.Atoi(size); ok && err == nil && strings.HasPrefix(msg, "New size: ") {
			l.Kind, l.Count = Rescaled, n
		}
	default:
		return false
	}
	return true
}
