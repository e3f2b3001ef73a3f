package correlate

import (
	"time"

	"github.com/readygap/readygap/sources"
)

// Tuning values of the correlation. Each decides one judgement; the
// scenario files under classify/testdata pin every one of them from both
// sides.
const (
	// DefaultMergeGap joins failures of one mechanism separated by less than
	// this into one window when no rollout groups them. Load balancers retry
	// health checks every 5 s at the shortest (GKE checkIntervalSec 5, ALB
	// HealthCheckIntervalSeconds 5), so a gap shorter than that is one
	// episode of the same state.
	DefaultMergeGap = 5 * time.Second

	// DefaultMinSignals is the fewest failure signals that make an incident:
	// one or two LB 5xx are what any busy load balancer produces by chance
	// (a client reset, a keep-alive race) and are reported as a note.
	DefaultMinSignals = 3

	// DefaultSkew is the clock difference tolerated between the load
	// balancer's records and the cluster's when no offset could be measured:
	// NTP keeps nodes within a second, and Kubernetes events are stamped to
	// the second, so two seconds of truncation plus one of drift.
	DefaultSkew = 3 * time.Second

	// servedRunGap splits the times a backend served responses into runs: a
	// backend that answered nothing for this long has stopped (or is another
	// pod). Rolling pod churn on one node takes longer than this to hand an
	// IP to a new pod (termination, scheduling and start are each seconds),
	// and a live backend behind a load balancer with any traffic answers
	// more often than twice a minute.
	servedRunGap = 30 * time.Second

	// ordinaryPauseFactor is how many of a backend's mean intervals
	// between responses make a pause its rate does not explain. A load
	// balancer spreading requests at random over its targets leaves each
	// a pause longer than k mean intervals with probability e^-k (the
	// gaps of a Poisson stream): at 14, about once in a million pauses,
	// fewer than an hour of a 20,000-target fleet at 280 requests a
	// second holds. A shorter one between two runs of a bare IP is the
	// backend waiting for its next request, not gone: servedRunGap alone
	// split the traffic of every target of a 2,000-target fleet, which
	// answers every 7 s, and turned a keep-alive trickle into termination
	// races.
	ordinaryPauseFactor = 14

	// burstGap is the longest pause between two client-visible failures
	// of one burst (see Window.Active). During an incident clients send
	// requests several times a second (the fixtures' quietest, GKE at 1.5
	// a second, fail one about every 0.7 s while every request fails): a
	// pause of 5 s without a failure is failing having stopped, and two
	// bursts 46 s apart are not 61 s of failure.
	burstGap = 5 * time.Second

	// rolloutLookback is how long before a rollout's first step its failures
	// and events may start (the Deployment controller records its first
	// scale-down and scale-up in one reconcile, and events are stamped to
	// the second) and rolloutLookahead how long after its last step: the
	// load balancer learns of the last old pod's removal seconds to a
	// minute later (ALB deregistration, GKE NEG detach).
	rolloutLookback  = 5 * time.Second
	rolloutLookahead = 2 * time.Minute

	// trafficRolloutGap separates rollouts seen in the load balancer's
	// traffic alone: backends that appear or disappear within this of each
	// other belong to one rollout. Deployments roll a pod at a time at most
	// minutes apart (progressDeadlineSeconds defaults to 600 s, but steps of
	// a healthy rollout take seconds to a minute).
	trafficRolloutGap = 5 * time.Minute

	// dataEdge is how far from the first or last request a backend must
	// appear or disappear for the traffic alone to call it new or old: at
	// the edges of the data, appearing is only the logs starting.
	dataEdge = 30 * time.Second
	// stopFailures is how many requests must fail at an IP after its last
	// response, with none served since, for the traffic alone to call it
	// stopped within dataEdge of the logs' end: a pod gone while the
	// proxies still send to it fails every request it is sent, where an
	// idle keep-alive race or a stray failure is one request among served
	// ones.
	stopFailures = 3
	// stopChance bounds the chance that those failures are a run of the
	// IP's ordinary ones (its share of failed requests, to the power of
	// their number): one in a million, so that a 2 % trickle over 20,000
	// targets (a run of three at one of them by chance in one analysis of
	// six) ends none of them.
	stopChance = 1e-6

	// joinWindow bounds how far apart a pod's lifecycle step and a
	// backend IP's traffic step may be to join them when no record names
	// both: the AWS Load Balancer Controller and GKE act on endpoint
	// changes within seconds, and load balancers stop sending within a
	// minute (ALB deregistration, NEG detach).
	joinWindow = time.Minute

	// joinMargin is how much better the best pod for an IP (and IP for a
	// pod) must fit than the next one for an inferred join: below it the
	// evidence does not single one out, and a wrong join is worse than none.
	joinMargin = 2 * time.Second

	// minClockOffset is the smallest offset between the load balancer's and
	// the cluster's clock that is corrected: below it truncation to the
	// second (events) and propagation lags dominate.
	minClockOffset = 1500 * time.Millisecond

	// maxClockSpread is the largest spread (median absolute deviation) the
	// paired observations of a clock offset may have: beyond it they
	// disagree and no offset is applied.
	maxClockSpread = time.Second

	// minClockPairs is the fewest paired observations an offset rests on.
	minClockPairs = 2

	// stampResolution is the resolution of the cluster's records: events,
	// deletion and condition times are stamped to the second, so a stamp
	// is up to this much earlier than the moment it records.
	stampResolution = time.Second

	// minTerminationSkew is the least time a failure may precede a pod's
	// recorded termination and count as after it once the clocks are
	// compared, however closely the pairs agree: each pair places a stop
	// somewhere between two requests, and two or three pairs may agree
	// closely by chance; half the stamps' resolution.
	minTerminationSkew = 500 * time.Millisecond

	// maxClockOffset bounds the offsets considered: beyond it a pair is not
	// the same event seen twice.
	maxClockOffset = 30 * time.Second

	// maxStopEdge is the longest pause between a backend's last response
	// and its first failure that still pins when it stopped: under load a
	// backend answers several times a second, and the pair's error is half
	// the pause, within the second that events are stamped to.
	maxStopEdge = 2 * time.Second

	// clockResolution is what a measured offset is rounded to: its pairs
	// rest on events stamped to the second, so finer digits are noise.
	clockResolution = 100 * time.Millisecond

	// DefaultGracePeriod is terminationGracePeriodSeconds when a pod spec
	// does not set it (the Kubernetes API default, 30 s).
	DefaultGracePeriod = 30 * time.Second

	// unreachableConnect is how long a connect to a pod IP with nothing
	// behind it takes to fail with EHOSTUNREACH: the node resolves the
	// address with mcast_solicit (3) ARP probes retrans_time_ms (1000)
	// apart, the Linux defaults (Documentation/networking/ip-sysctl).
	unreachableConnect = 3 * time.Second

	// errorLineMatch is how far apart an ingress-nginx access line and the
	// error-log line of the same failed attempt may be: both are written
	// when the attempt ends, stamped to the second.
	errorLineMatch = 1500 * time.Millisecond
)

// Options tune the correlation; zero values take the defaults above.
type Options struct {
	// MergeGap joins failure runs separated by less than this.
	MergeGap time.Duration
	// MinSignals is the fewest failure signals that make an incident.
	MinSignals int
	// Skew is the clock difference tolerated between sources.
	Skew time.Duration
	// KubeVersion is the cluster's Kubernetes version, given or read from
	// the inputs; zero when unknown. The fixes choose by it.
	KubeVersion sources.KubeVersion
}

func (o Options) withDefaults() Options {
	if o.MergeGap == 0 {
		o.MergeGap = DefaultMergeGap
	}
	if o.MinSignals == 0 {
		o.MinSignals = DefaultMinSignals
	}
	if o.Skew == 0 {
		o.Skew = DefaultSkew
	}
	return o
}
