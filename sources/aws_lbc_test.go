package sources

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// lbcWant is the expected record of one controller line.
type lbcWant struct {
	kind   LifecycleKind
	time   time.Time
	ip     string // "" for no IP
	port   int
	zone   string
	arn    string
	object string
	reason string
	msg    string
}

// Lines quoted in aws.md §5.1, verbatim, with their source issue.
const (
	// kubernetes-sigs/aws-load-balancer-controller#3069 (v2.4.x, ip targets).
	lbcDeregistering3069 = `{"level":"info","ts":1676814406.2301478,"msg":"deRegistering targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:925517469638:targetgroup/k8s-rcsapp-rcssende-24d496d02c/2a976e5b7700ac18","targets":[{"AvailabilityZone":"ap-northeast-2a","Id":"172.31.178.98","Port":80}]}`
	lbcDeregistered3069  = `{"level":"info","ts":1676814406.2712817,"msg":"deRegistered targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:925517469638:targetgroup/k8s-rcsapp-rcssende-24d496d02c/2a976e5b7700ac18"}`
	lbcRegistered3069    = `{"level":"info","ts":1677210150.4308767,"msg":"registered targets","arn":"arn:aws:elasticloadbalancing:us-west-2:385595570334:targetgroup/k8s--5c1e8bc538/5d8f911b3ecff7d4"}`
	// #2044 (instance targets, NodePort).
	lbcDeregistering2044 = `{"level":"info","ts":1622339658.7193022,"msg":"deRegistering targets","arn":"arn:aws:elasticloadbalancing:us-east-2:012345678965:targetgroup/our-service-a111111c1a/dddddddddddddddd","targets":[{"AvailabilityZone":null,"Id":"i-11111111111111111","Port":30233}]}`
	lbcDeregistered2044  = `{"level":"info","ts":1622339658.7639265,"msg":"deRegistered targets","arn":"arn:aws:elasticloadbalancing:us-east-2:012345678965:targetgroup/our-service-a180939c4a/dddddddddddddddd"}`
	// #4324 (v2.13+, aws-sdk-go-v2 key order, RFC 3339 ts).
	lbcRegistering4324 = `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registering targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:000000000000:targetgroup/k8s-mockit-mockit-013420b522/6aac63d2d6dc0cb1","targets":[{"Id":"10.254.21.181","AvailabilityZone":null,"Port":5000}]}`
	lbcRegistered4324  = `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registered targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:000000000000:targetgroup/k8s-mockit-mockit-0c140c049e/fd85181e107a0bc0","targets":[{"Id":"10.254.21.181","AvailabilityZone":null,"Port":3000}]}`
	lbcReconcile4324   = `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"Successful reconcile","tgb":{"name":"k8s-mockit-mockit-0c140c049e","namespace":"mockit"},"checkpoint":"KHJv9zPJETk-bEnLVBPwV0Z4b95joo-yMgS1PSBuaoc/wA3tfiXjnI2d4iFa-tXC7D4adn8_Ks8UwTdEiKYAtZM"}`
	// #1992 (named logger, epoch ts) and #4223 (named logger, RFC 3339 ts).
	lbcListener1992      = `{"level":"info","ts":1620417211.6668503,"logger":"controllers.ingress","msg":"creating listener","stackID":"game-2048/ingress-2048","resourceID":"80"}`
	lbcTargetGroup4223   = `{"level":"info","ts":"2025-06-06T14:16:57Z","logger":"controllers.service","msg":"created targetGroup","stackID":"echoserver/echo","resourceID":"echoserver/echo:80","arn":"arn:aws:elasticloadbalancing:us-west-1:<READACTED>:targetgroup/k8s-echoserv-echo-be674bae76/fa0c40dc667c36f2"}`
	lbcSecurityGroup3569 = `{"level":"info","ts":"2024-02-12T17:48:48Z","logger":"backend-sg-provider","msg":"created SecurityGroup","name":"k8s-traffic-mlkubecluster-a083a9e7d5","id":"sg-VVVVVVVVVVVV"}`
)

const (
	arn3069a = "arn:aws:elasticloadbalancing:ap-northeast-2:925517469638:targetgroup/k8s-rcsapp-rcssende-24d496d02c/2a976e5b7700ac18"
	arn3069b = "arn:aws:elasticloadbalancing:us-west-2:385595570334:targetgroup/k8s--5c1e8bc538/5d8f911b3ecff7d4"
	arn2044a = "arn:aws:elasticloadbalancing:us-east-2:012345678965:targetgroup/our-service-a111111c1a/dddddddddddddddd"
	arn2044b = "arn:aws:elasticloadbalancing:us-east-2:012345678965:targetgroup/our-service-a180939c4a/dddddddddddddddd"
	arn4324a = "arn:aws:elasticloadbalancing:ap-northeast-2:000000000000:targetgroup/k8s-mockit-mockit-013420b522/6aac63d2d6dc0cb1"
	arn4324b = "arn:aws:elasticloadbalancing:ap-northeast-2:000000000000:targetgroup/k8s-mockit-mockit-0c140c049e/fd85181e107a0bc0"
	arnTest  = "arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-web-0123456789/0123456789abcdef"
)

func utc(y int, mo time.Month, d, h, mi, s, us int) time.Time {
	return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
}

func TestAWSLBCParse(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []lbcWant
	}{
		{"3069 deRegistering v1 ip target", lbcDeregistering3069, []lbcWant{{
			kind: TargetDeregistering, time: utc(2023, 2, 19, 13, 46, 46, 230147),
			ip: "172.31.178.98", port: 80, zone: "ap-northeast-2a", arn: arn3069a, msg: "deRegistering targets"}}},
		{"3069 deRegistered without targets", lbcDeregistered3069, []lbcWant{{
			kind: TargetDeregistered, time: utc(2023, 2, 19, 13, 46, 46, 271281), arn: arn3069a, msg: "deRegistered targets"}}},
		{"3069 registered without targets", lbcRegistered3069, []lbcWant{{
			kind: TargetRegistered, time: utc(2023, 2, 24, 3, 42, 30, 430876), arn: arn3069b, msg: "registered targets"}}},
		{"2044 deRegistering instance target", lbcDeregistering2044, []lbcWant{{
			kind: TargetDeregistering, time: utc(2021, 5, 30, 1, 54, 18, 719302), port: 30233, arn: arn2044a,
			object: "Instance/i-11111111111111111", msg: "deRegistering targets"}}},
		{"2044 deRegistered without targets", lbcDeregistered2044, []lbcWant{{
			kind: TargetDeregistered, time: utc(2021, 5, 30, 1, 54, 18, 763926), arn: arn2044b, msg: "deRegistered targets"}}},
		{"4324 registering v2 order", lbcRegistering4324, []lbcWant{{
			kind: TargetRegistering, time: utc(2025, 8, 29, 7, 23, 0, 0), ip: "10.254.21.181", port: 5000, arn: arn4324a, msg: "registering targets"}}},
		{"4324 registered with targets", lbcRegistered4324, []lbcWant{{
			kind: TargetRegistered, time: utc(2025, 8, 29, 7, 23, 0, 0), ip: "10.254.21.181", port: 3000, arn: arn4324b, msg: "registered targets"}}},
		{"4324 Successful reconcile", lbcReconcile4324, nil},
		{"1992 creating listener", lbcListener1992, nil},
		{"4223 created targetGroup has an arn but no targets message", lbcTargetGroup4223, nil},
		{"3569 created SecurityGroup", lbcSecurityGroup3569, nil},
		// Constructed: the newest SDK adds QuicServerId; a chunk of two
		// targets, one IPv6; the frontend-NLB manager's lines.
		{"QuicServerId and zone", `{"level":"info","ts":"2026-01-15T04:22:30Z","msg":"deRegistered targets","arn":"` + arnTest + `","targets":[{"Id":"10.0.12.96","AvailabilityZone":"ap-northeast-2c","Port":80,"QuicServerId":null}]}`, []lbcWant{{
			kind: TargetDeregistered, time: utc(2026, 1, 15, 4, 22, 30, 0), ip: "10.0.12.96", port: 80, zone: "ap-northeast-2c", arn: arnTest, msg: "deRegistered targets"}}},
		{"two targets", `{"level":"info","ts":1676814406.5,"msg":"registering targets","arn":"` + arnTest + `","targets":[{"AvailabilityZone":null,"Id":"10.0.1.2","Port":8080},{"AvailabilityZone":"us-east-1b","Id":"2600:1f18::5","Port":8080}]}`, []lbcWant{
			{kind: TargetRegistering, time: utc(2023, 2, 19, 13, 46, 46, 500000), ip: "10.0.1.2", port: 8080, arn: arnTest, msg: "registering targets"},
			{kind: TargetRegistering, time: utc(2023, 2, 19, 13, 46, 46, 500000), ip: "2600:1f18::5", port: 8080, zone: "us-east-1b", arn: arnTest, msg: "registering targets"}}},
		{"frontend NLB registering an ALB target", `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registering targets","arn":"` + arnTest + `","targets":{"Id":"arn:aws:elasticloadbalancing:us-east-1:111122223333:loadbalancer/app/web/0123456789abcdef","Port":80}}`, nil},
		{"frontend NLB deregistered, lower case", `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"deregistered targets","arn":"` + arnTest + `"}`, nil},
		{"error about targets", `{"level":"error","ts":1676814407.0000019,"logger":"controller-runtime.manager.controller.targetGroupBinding","msg":"Reconciler error","error":"InvalidTarget: The following targets are not in a running state and cannot be registered: 'i-0abc'"}`, []lbcWant{{
			kind: LifecycleOther, time: utc(2023, 2, 19, 13, 46, 47, 1), reason: "ControllerError",
			msg: "Reconciler error: InvalidTarget: The following targets are not in a running state and cannot be registered: 'i-0abc'"}}},
		{"error not about targets", `{"level":"error","ts":1676814407.1,"msg":"Reconciler error","error":"Unauthorized"}`, nil},
		{"fraction shorter than microseconds", `{"level":"info","ts":1676814406.23,"msg":"deRegistered targets","arn":"` + arnTest + `"}`, []lbcWant{{
			kind: TargetDeregistered, time: utc(2023, 2, 19, 13, 46, 46, 230000), arn: arnTest, msg: "deRegistered targets"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runLines(t, awsLBC{}, "lbc.log", tt.line)
			if rep.Skipped != 0 {
				t.Fatalf("skipped: %v", rep.SkipSamples())
			}
			checkLBCRecords(t, c.lifecycle, tt.want)
		})
	}
}

func checkLBCRecords(t *testing.T, got []Lifecycle, want []lbcWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		var ip netip.Addr
		if w.ip != "" {
			ip = netip.MustParseAddr(w.ip)
		}
		if g.Kind != w.kind || !g.Time.Equal(w.time) || g.IP != ip || g.Port != w.port || g.Zone != w.zone ||
			g.Group != w.arn || g.Object != w.object || g.Reason != w.reason || g.Message != w.msg {
			t.Errorf("record %d:\n got %v %s ip=%v port=%d zone=%q group=%q object=%q reason=%q msg=%q\nwant %v %s ip=%v port=%d zone=%q group=%q object=%q reason=%q msg=%q",
				i, g.Kind, g.Time.Format(time.RFC3339Nano), g.IP, g.Port, g.Zone, g.Group, g.Object, g.Reason, g.Message,
				w.kind, w.time.Format(time.RFC3339Nano), ip, w.port, w.zone, w.arn, w.object, w.reason, w.msg)
		}
		if g.Source != lbcSource || g.Format != FormatAWSLBC || g.From != -1 || g.Origin.Line != 1 {
			t.Errorf("record %d: source %q format %q from %d origin %v", i, g.Source, g.Format, g.From, g.Origin)
		}
	}
}

func TestAWSLBCMalformed(t *testing.T) {
	for _, line := range []string{
		`not json`,
		`{"level":"info","ts":1676814406.2,"msg":"registering targets"`,
		`{"level":"info","msg":"registering targets"}`,
		`{"level":"info","ts":"2025-08-29 07:23:00","msg":"registering targets"}`,
		`{"level":"info","ts":1.6768144062e+09,"msg":"registering targets"}`,
		`{"level":"info","ts":1676814406.2}`,
		`{"level":"info","ts":1676814406.2,"msg":"registering targets","targets":"10.0.1.2"}`,
		`{"level":"info","ts":1676814406.2,"msg":"registering targets","targets":[{"Id":"10.0.1.2","Port":70000}]}`,
	} {
		c, rep := runLines(t, awsLBC{}, "lbc.log", line)
		if rep.Skipped != 1 || len(c.lifecycle) != 0 {
			t.Errorf("%s: skipped %d records %d, want a skipped line and no record", line, rep.Skipped, len(c.lifecycle))
		}
	}
}

func TestAWSLBCMatch(t *testing.T) {
	for _, line := range []string{lbcDeregistering3069, lbcDeregistered3069, lbcRegistered3069, lbcDeregistering2044,
		lbcDeregistered2044, lbcRegistering4324, lbcRegistered4324, lbcReconcile4324, lbcListener1992,
		lbcTargetGroup4223, lbcSecurityGroup3569} {
		if !(awsLBC{}).Match([]byte(line)) {
			t.Errorf("Match(%s) = false", line)
		}
	}
	for _, line := range []string{
		`http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`,
		`I0601 10:02:01.318192       7 event.go:285] Event(v1.ObjectReference{Kind:"Pod"}): type: 'Normal' reason: 'RELOAD' NGINX reload triggered due to a change in configuration`,
		`{"log":"{\"level\":\"info\",\"ts\":\"2024-02-12T17:48:48Z\",\"msg\":\"created SecurityGroup\"}"}`,
		`{"insertId":"x","jsonPayload":{"level":"info","ts":1,"msg":"m"}}`,
	} {
		if (awsLBC{}).Match([]byte(line)) {
			t.Errorf("Match(%s) = true", line)
		}
	}
}

// TestAWSLBCWrapped feeds the wrapped lines of aws.md §4.4 through
// unwrapLine and the adapter, as the pipeline does.
func TestAWSLBCWrapped(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		stamp     time.Time
		match     bool
		want      []lbcWant
		innerHead string
	}{
		{
			name:      "#3569 viewer time, Fluent Bit JSON, CRI line in log",
			line:      `2024-02-12T17:48:48.974+00:00	{"log":"2024-02-12T17:48:48.974879644Z stderr F {\"level\":\"info\",\"ts\":\"2024-02-12T17:48:48Z\",\"logger\":\"backend-sg-provider\",\"msg\":\"created SecurityGroup\",\"name\":\"k8s-traffic-mlkubecluster-a083a9e7d5\",\"id\":\"sg-VVVVVVVVVVVV\"}"}`,
			stamp:     time.Date(2024, 2, 12, 17, 48, 48, 974879644, time.UTC),
			match:     true,
			innerHead: lbcSecurityGroup3569,
		},
		{
			name:      "Container Insights fixture (cloudwatch-agent line, not a controller line)",
			line:      `2023-03-23T15:09:32.282Z {"log":"2023-03-23T15:09:32.28284833Z stderr F 2023-03-23T15:09:32Z I! no pod is found for namespace:default,podName:open5gs-udr-6c96f5d447-8gfmb, refresh the cache now...","kubernetes":{"pod_name":"cloudwatch-agent-spj2z","namespace_name":"default","pod_id":"c7d7e86f-68d2-420f-b563-91161f2e0e4f","host":"ip-10-0-101-15.ec2.internal","container_name":"cloudwatch-agent","docker_id":"d4bba41a8063a3702a918a7015395fd3fd6adfe1488662ea1996115da4cfda44","container_hash":"docker.io/amazon/cloudwatch-agent@sha256:33f0072c93d614b5dd32f044549f3d764d05a42f068e852e94bdd849098852c7","container_image":"docker.io/amazon/cloudwatch-agent:1.247354.0b251981"}}`,
			stamp:     time.Date(2023, 3, 23, 15, 9, 32, 282848330, time.UTC),
			innerHead: `2023-03-23T15:09:32Z I! no pod is found for namespace:default,podName:open5gs-udr-6c96f5d447-8gfmb, refresh the cache now...`,
		},
		{
			name:      "constructed log_processed example: whole-second ts refined by the Fluent Bit time",
			line:      `{"time":"2026-08-09T02:57:08.636329927Z","stream":"stdout","_p":"F","log":"{\"level\":\"info\",\"ts\":\"2026-08-09T02:57:08Z\",\"msg\":\"registering targets\"}","log_processed":{"level":"info","ts":"2026-08-09T02:57:08Z","msg":"registering targets"},"kubernetes":{"pod_name":"aws-load-balancer-controller-7d9c8f6b5-abcde","namespace_name":"kube-system","pod_id":"c7d7e86f-68d2-420f-b563-91161f2e0e4f","host":"ip-10-0-101-15.ec2.internal","container_name":"aws-load-balancer-controller","docker_id":"d4bba41a8063a3702a918a7015395fd3fd6adfe1488662ea1996115da4cfda44","container_hash":"public.ecr.aws/eks/aws-load-balancer-controller@sha256:...","container_image":"public.ecr.aws/eks/aws-load-balancer-controller:v2.13.0"}}`,
			stamp:     time.Date(2026, 8, 9, 2, 57, 8, 636329927, time.UTC),
			match:     true,
			want:      []lbcWant{{kind: TargetRegistering, time: utc(2026, 8, 9, 2, 57, 8, 636329), msg: "registering targets"}},
			innerHead: `{"level":"info","ts":"2026-08-09T02:57:08Z","msg":"registering targets"}`,
		},
		{
			name:  "kubectl logs --timestamps of a v2.4 line: the epoch ts is kept",
			line:  "2023-02-19T13:46:46.231000000Z " + lbcDeregistering3069,
			stamp: time.Date(2023, 2, 19, 13, 46, 46, 231000000, time.UTC),
			match: true,
			want: []lbcWant{{kind: TargetDeregistering, time: utc(2023, 2, 19, 13, 46, 46, 230147),
				ip: "172.31.178.98", port: 80, zone: "ap-northeast-2a", arn: arn3069a, msg: "deRegistering targets"}},
			innerHead: lbcDeregistering3069,
		},
		{
			name:  "CRI line whose stamp is in the next second: the ts is kept",
			line:  "2025-08-29T07:23:01.000100Z stdout F " + lbcRegistering4324,
			stamp: time.Date(2025, 8, 29, 7, 23, 1, 100000, time.UTC),
			match: true,
			want: []lbcWant{{kind: TargetRegistering, time: utc(2025, 8, 29, 7, 23, 0, 0),
				ip: "10.254.21.181", port: 5000, arn: arn4324a, msg: "registering targets"}},
			innerHead: lbcRegistering4324,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner, stamp, _ := unwrapLine([]byte(tt.line), nil)
			if string(inner) != tt.innerHead {
				t.Fatalf("inner = %s\nwant %s", inner, tt.innerHead)
			}
			if !stamp.Equal(tt.stamp) {
				t.Errorf("stamp = %v, want %v", stamp, tt.stamp)
			}
			if got := (awsLBC{}).Match(inner); got != tt.match {
				t.Fatalf("Match = %v, want %v", got, tt.match)
			}
			if !tt.match {
				return
			}
			c := &collector{}
			rep := &InputReport{}
			em := newEmitter(c, &Options{}, rep, nil)
			ln := &Line{Origin: Origin{File: "lbc.log", Line: 1}, Stamp: stamp}
			if err := (awsLBC{}).Parse(inner, ln, em); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkLBCRecords(t, c.lifecycle, tt.want)
		})
	}
}

// TestAWSLBCCloudWatchExport reads controller lines out of a CloudWatch
// event, the outermost wrapper.
func TestAWSLBCCloudWatchExport(t *testing.T) {
	elem := `{"logStreamName":"ip-10-0-101-15.ec2.internal-application.var.log.containers.aws-load-balancer-controller-7d9c8f6b5-abcde_kube-system_aws-load-balancer-controller-d4bba41a.log","timestamp":1756452180912,"message":"{\"time\":\"2025-08-29T07:23:00.911873Z\",\"stream\":\"stderr\",\"_p\":\"F\",\"log\":\"` +
		strings.ReplaceAll(lbcRegistering4324, `"`, `\\\"`) + `\"}","ingestionTime":1756452181000,"eventId":"39131231231231231231231231231231231231231231231231231231"}`
	msg, evStamp, err := cloudWatchEvent([]byte(elem))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 8, 29, 7, 23, 0, 912000000, time.UTC); !evStamp.Equal(want) {
		t.Errorf("event stamp %v, want %v", evStamp, want)
	}
	inner, stamp, _ := unwrapLine(msg, nil)
	c := &collector{}
	em := newEmitter(c, &Options{}, &InputReport{}, nil)
	if err := (awsLBC{}).Parse(inner, &Line{Origin: Origin{File: "cw.json", Line: 1}, Stamp: stamp}, em); err != nil {
		t.Fatalf("Parse(%s): %v", inner, err)
	}
	checkLBCRecords(t, c.lifecycle, []lbcWant{{kind: TargetRegistering, time: utc(2025, 8, 29, 7, 23, 0, 911873),
		ip: "10.254.21.181", port: 5000, arn: arn4324a, msg: "registering targets"}})
}

func FuzzAWSLBC(f *testing.F) {
	for _, s := range []string{lbcDeregistering3069, lbcDeregistered3069, lbcRegistered3069, lbcDeregistering2044,
		lbcDeregistered2044, lbcRegistering4324, lbcRegistered4324, lbcReconcile4324, lbcListener1992,
		lbcTargetGroup4223, lbcSecurityGroup3569,
		`{"level":"error","ts":1676814407.1,"msg":"Reconciler error","error":"InvalidTarget: targets"}`,
		`{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registering targets","arn":"a","targets":{"Id":"arn:x","Port":80}}`,
	} {
		f.Add(s, int64(0))
		f.Add(s, int64(1756452180912))
	}
	f.Fuzz(func(t *testing.T, line string, stampMS int64) {
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, nil)
		ln := &Line{Origin: Origin{File: "f", Line: 1}, Stamp: time.UnixMilli(stampMS).UTC()}
		err := (awsLBC{}).Parse([]byte(line), ln, em)
		if err != nil && len(c.lifecycle) != 0 {
			t.Fatalf("error %v after %d records", err, len(c.lifecycle))
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() {
				t.Errorf("zero time in %+v", l)
			}
			if l.Time.Nanosecond()%1000 != 0 {
				t.Errorf("time %v not truncated to the microsecond", l.Time)
			}
			if l.Port < 0 || l.Port > 65535 || l.Format != FormatAWSLBC || l.Source != lbcSource || l.Count < 0 {
				t.Errorf("bad record %+v", l)
			}
			if l.Kind == LifecycleOther && l.Reason != "ControllerError" {
				t.Errorf("other record without ControllerError: %+v", l)
			}
			if l.IP.IsValid() && l.Object != "" {
				t.Errorf("record with both IP and instance: %+v", l)
			}
		}
	})
}
