package sources

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestInterpretDisruption reads the events of node drains, evictions and
// autoscaler rescales as their components word them.
func TestInterpretDisruption(t *testing.T) {
	for _, c := range []struct {
		name, object, reason, msg string
		kind                      LifecycleKind
		node                      string
		count                     int
	}{
		{"kubectl drain cordon", "Node/ip-10-0-1-5", "NodeNotSchedulable", "Node ip-10-0-1-5 status is now: NodeNotSchedulable", NodeDraining, "ip-10-0-1-5", 0},
		{"autoscaler node", "Node/gke-pool-1-abcd", "ScaleDown", "marked the node as toBeDeleted/unschedulable", NodeDraining, "gke-pool-1-abcd", 0},
		{"autoscaler pod", "Pod/web-7d9f-abcde", "ScaleDown", "deleting pod for node scale down", PodEvicted, "", 0},
		{"karpenter node", "Node/ip-10-0-2-9", "DisruptionTerminating", "Disrupting Node: Underutilized", NodeDraining, "ip-10-0-2-9", 0},
		{"karpenter nodeclaim", "NodeClaim/default-x7k2p", "DisruptionTerminating", "Disrupting NodeClaim: Underutilized", LifecycleOther, "", 0},
		{"spot node", "Node/ip-10-0-3-3", "SpotInterrupted", "Spot interruption warning was triggered", NodeDraining, "ip-10-0-3-3", 0},
		{"karpenter eviction", "Pod/web-7d9f-fghij", "Evicted", "Evicted pod: Underutilized", PodEvicted, "", 0},
		{"karpenter grace period", "Pod/web-7d9f-pqrst", "Disrupted", "Deleting the pod to accommodate the terminationTime 2025-11-08T17:40:00Z of the node. The pod was granted 25 seconds of grace-period of its 30 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.", PodEvicted, "", 0},
		{"karpenter stopping", "Node/ip-10-0-3-4", "InstanceStopping", "Instance is stopping", NodeDraining, "ip-10-0-3-4", 0},
		{"termination handler spot", "Node/ip-10-0-4-1", "SpotInterruption", "Spot ITN received. Instance will be interrupted at 2025-11-08T17:40:00Z", NodeDraining, "ip-10-0-4-1", 0},
		{"termination handler queue", "Node/ip-10-0-4-2", "SQSTermination", "Spot Interruption notice for instance i-0123456789abcdef0 was sent at 2025-11-08 17:38:00 +0000 UTC", NodeDraining, "ip-10-0-4-2", 0},
		{"termination handler ASG", "Node/ip-10-0-4-3", "ASGLifecycle", "ASG Lifecycle Termination event received. Instance will be interrupted at 2025-11-08 17:38:00 +0000 UTC", NodeDraining, "ip-10-0-4-3", 0},
		{"termination handler state", "Node/ip-10-0-4-4", "StateChange", "EC2 State Change event received. Instance i-0123456789abcdef0 went into shutting-down at 2025-11-08 17:38:00 +0000 UTC", NodeDraining, "ip-10-0-4-4", 0},
		{"termination handler drained", "Node/ip-10-0-4-5", "CordonAndDrain", "Node successfully cordoned and drained", NodeDraining, "ip-10-0-4-5", 0},
		{"termination handler rebalance", "Node/ip-10-0-4-6", "RebalanceRecommendation", "Rebalance recommendation received. Instance will be cordoned at 2025-11-08T17:38:00Z", LifecycleOther, "", 0},
		{"taint manager", "Pod/web-7d9f-klmno", "TaintManagerEviction", "Marking for deletion Pod shop/web-7d9f-klmno", PodEvicted, "", 0},
		{"hpa", "HorizontalPodAutoscaler/web", "SuccessfulRescale", "New size: 3; reason: All metrics below target", Rescaled, "", 3},
		{"hpa garbled", "HorizontalPodAutoscaler/web", "SuccessfulRescale", "New size: many", LifecycleOther, "", 0},
	} {
		l := Lifecycle{Object: c.object, Reason: c.reason}
		interpretKubeEvent(&l, c.reason, c.msg)
		if l.Kind != c.kind || l.Node != c.node || l.Count != c.count {
			t.Errorf("%s: kind %v node %q count %d; want %v %q %d", c.name, l.Kind, l.Node, l.Count, c.kind, c.node, c.count)
		}
	}
}

// TestKeepAliveFacts reads keep-alive timeouts from containers as their
// servers take them.
func TestKeepAliveFacts(t *testing.T) {
	for _, c := range []struct {
		name, elem string
		want       *KeepAlive
	}{
		{"gunicorn flag", `{"name":"a","command":["gunicorn"],"args":["--bind","0.0.0.0:8080","--worker-class","gthread","--keep-alive","2","app:app"]}`, &KeepAlive{Server: "gunicorn", Seconds: 2, Set: true, Via: "--keep-alive 2", Unit: UnitSeconds, Command: []string{"gunicorn"}, Args: []string{"--bind", "0.0.0.0:8080", "--worker-class", "gthread", "--keep-alive", "2", "app:app"}}},
		{"gunicorn default", `{"name":"a","command":["/usr/local/bin/gunicorn","-k","gevent","app:app"]}`, &KeepAlive{Server: "gunicorn", Seconds: 2, Unit: UnitSeconds, Command: []string{"/usr/local/bin/gunicorn", "-k", "gevent", "app:app"}}},
		{"gunicorn threads", `{"name":"a","command":["gunicorn","--threads=4","app:app"]}`, &KeepAlive{Server: "gunicorn", Seconds: 2, Unit: UnitSeconds, Command: []string{"gunicorn", "--threads=4", "app:app"}}},
		{"gunicorn ASGI worker", `{"name":"a","command":["gunicorn","-kuvicorn.workers.UvicornWorker","--keep-alive=5","app:app"]}`, &KeepAlive{Server: "gunicorn", Seconds: 5, Set: true, Via: "--keep-alive 5", Unit: UnitSeconds, Command: []string{"gunicorn", "-kuvicorn.workers.UvicornWorker", "--keep-alive=5", "app:app"}}},
		{"gunicorn env", `{"name":"a","command":["gunicorn"],"env":[{"name":"GUNICORN_CMD_ARGS","value":"--workers 4 --worker-class=gthread --keep-alive=75"}]}`, &KeepAlive{Server: "gunicorn", Seconds: 75, Set: true, Via: "GUNICORN_CMD_ARGS --keep-alive 75", EnvValue: "--workers 4 --worker-class=gthread --keep-alive=75", Unit: UnitSeconds}},
		// The sync worker, gunicorn's default, closes every connection
		// after its response and ignores --keep-alive.
		{"gunicorn sync worker", `{"name":"a","command":["gunicorn"],"args":["--workers","4","--keep-alive","2","app:app"]}`, nil},
		{"gunicorn sync worker named", `{"name":"a","command":["gunicorn","-k","sync","--threads","1","app:app"]}`, nil},
		{"gunicorn sync worker in env", `{"name":"a","command":["sh","-c","exec gunicorn app:app"],"env":[{"name":"GUNICORN_CMD_ARGS","value":"--keep-alive 5"}]}`, nil},
		{"uvicorn", `{"name":"a","command":["python","-m","uvicorn"],"args":["main:app","--timeout-keep-alive=65"]}`, &KeepAlive{Server: "uvicorn", Seconds: 65, Set: true, Via: "--timeout-keep-alive 65", Unit: UnitSeconds, Command: []string{"python", "-m", "uvicorn"}, Args: []string{"main:app", "--timeout-keep-alive=65"}}},
		// Node.js takes server.keepAliveTimeout in milliseconds: 5000 is 5 s.
		{"node env", `{"name":"a","command":["node"],"args":["server.js"],"env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"5000"}]}`, &KeepAlive{Server: "node", Seconds: 5, Set: true, Via: "KEEP_ALIVE_TIMEOUT=5000", Command: []string{"node"}, Args: []string{"server.js"}, EnvValue: "5000", Unit: UnitMillis, UnitNote: nodeMillisNote}},
		{"node env, a duration", `{"name":"a","command":["node"],"args":["server.js"],"env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"65s"}]}`, &KeepAlive{Server: "node", Seconds: 65, Set: true, Via: "KEEP_ALIVE_TIMEOUT=65s", Command: []string{"node"}, Args: []string{"server.js"}, EnvValue: "65s", Unit: UnitDuration}},
		// An unknown server's bare 65000 is 65 s, not 18 hours; its bare 75 is seconds.
		{"unknown server, milliseconds", `{"name":"a","env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"65000"}]}`, &KeepAlive{Seconds: 65, Set: true, Via: "KEEP_ALIVE_TIMEOUT=65000", EnvValue: "65000", Unit: UnitMillis, UnitNote: plausibleMillisNote}},
		{"unknown server, 1000 is milliseconds", `{"name":"a","env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"1000"}]}`, &KeepAlive{Seconds: 1, Set: true, Via: "KEEP_ALIVE_TIMEOUT=1000", EnvValue: "1000", Unit: UnitMillis, UnitNote: plausibleMillisNote}},
		{"unknown server, 999 is seconds", `{"name":"a","env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"999"}]}`, &KeepAlive{Seconds: 999, Set: true, Via: "KEEP_ALIVE_TIMEOUT=999", EnvValue: "999", Unit: UnitSeconds}},
		{"unknown server, seconds", `{"name":"a","env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"75"}]}`, &KeepAlive{Seconds: 75, Set: true, Via: "KEEP_ALIVE_TIMEOUT=75", EnvValue: "75", Unit: UnitSeconds}},
		{"Go duration", `{"name":"a","env":[{"name":"HTTP_KEEP_ALIVE_TIMEOUT","value":"5s"}]}`, &KeepAlive{Seconds: 5, Set: true, Via: "HTTP_KEEP_ALIVE_TIMEOUT=5s", EnvValue: "5s", Unit: UnitDuration}},
		{"not a number", `{"name":"a","env":[{"name":"KEEP_ALIVE_TIMEOUT","value":"long"}]}`, nil},
		// Spring Boot's Duration: bare numbers are milliseconds.
		{"spring env", `{"name":"a","command":["java","-jar","app.jar"],"env":[{"name":"SERVER_TOMCAT_KEEPALIVETIMEOUT","value":"20000"}]}`, &KeepAlive{Server: "spring", Seconds: 20, Set: true, Via: "SERVER_TOMCAT_KEEPALIVETIMEOUT=20000", EnvValue: "20000", Unit: UnitMillis, Command: []string{"java", "-jar", "app.jar"}}},
		{"spring argument", `{"name":"a","command":["java","-jar","app.jar"],"args":["--server.tomcat.keep-alive-timeout=30s"]}`, &KeepAlive{Server: "spring", Seconds: 30, Set: true, Via: "--server.tomcat.keep-alive-timeout 30s", Unit: UnitDuration, Command: []string{"java", "-jar", "app.jar"}, Args: []string{"--server.tomcat.keep-alive-timeout=30s"}}},
		{"unknown server", `{"name":"a","command":["java","-jar","app.jar"]}`, nil},
	} {
		var ctr corev1.Container
		if err := json.Unmarshal([]byte(c.elem), &ctr); err != nil {
			t.Fatal(err)
		}
		got := keepAliveFacts(&ctr)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
