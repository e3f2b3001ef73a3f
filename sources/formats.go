package sources

import "strings"

// Family is the load-balancer family or platform a format belongs to. Rules
// use it to pick platform defaults and fixes; they never look at formats.
type Family string

// The families of the formats readygap reads.
const (
	// FamilyGCP is Google Cloud's Application Load Balancers (global,
	// regional and internal) in front of GKE.
	FamilyGCP Family = "gcp"
	// FamilyALB is AWS Application Load Balancers and the AWS Load Balancer Controller.
	FamilyALB Family = "alb"
	// FamilyIngressNginx is the ingress-nginx controller.
	FamilyIngressNginx Family = "ingress-nginx"
	// FamilyKubernetes is Kubernetes itself: events and objects.
	FamilyKubernetes Family = "kubernetes"
	// FamilyEnvoy is the Envoy-based gateways and meshes: Istio (and Cloud
	// Service Mesh), Envoy Gateway, Contour, kgateway, plain Envoy.
	FamilyEnvoy Family = "envoy"
	// FamilyNginx is nginx outside ingress-nginx: plain nginx and the
	// NGINX Inc controller (nginx/kubernetes-ingress).
	FamilyNginx Family = "nginx"
	// FamilyClient is no load balancer: the client's side of the requests,
	// as load-testing tools and curl loops print it.
	FamilyClient Family = "client"
)

// Platform is the product around an Envoy proxy, when a record shows it.
// Envoy logs the same way whoever configures it, but products differ in
// their defaults (Istio retries twice unless told otherwise, Envoy Gateway
// only when a policy says so), so rules may want to know. Adapters set it
// from the upstream cluster's name, which each control plane builds in its
// own shape, or from a log format only one product writes.
type Platform string

// The platforms readygap recognises.
const (
	// PlatformIstio: clusters named `outbound|<port>|<subset>|<fqdn>` or
	// `inbound|<port>||`, Istio's default text format, Cloud Service Mesh entries.
	PlatformIstio Platform = "istio"
	// PlatformEnvoyGateway: clusters named `httproute/<ns>/<name>/rule/<n>`
	// (and grpcroute/, tlsroute/, tcproute/, udproute/), the `x-envoy-origin-path`
	// key of Envoy Gateway's default JSON.
	PlatformEnvoyGateway Platform = "envoy-gateway"
	// PlatformContour: clusters named `<ns>/<service>/<port>/<10 hex digits>`,
	// the `@timestamp` key of Contour's default JSON fields.
	PlatformContour Platform = "contour"
	// PlatformKgateway: clusters named `kube-svc:<...>`.
	PlatformKgateway Platform = "kgateway"
)

// FormatInfo describes one format readygap reads: the table row in
// docs/formats.md, the help texts and detection all come from it.
type FormatInfo struct {
	ID Format
	// Family is the load balancer or platform the format comes from.
	Family Family
	// Description says what the format is, in one line (Markdown).
	Description string
	// HowToGet says how users usually get such a file (Markdown).
	HowToGet string
	// ClusterClock marks a format written by a component that runs in
	// the cluster (a controller), whose times follow the cluster's clocks
	// rather than the load balancer's.
	ClusterClock bool

	line  lineAdapter
	json  jsonAdapter
	table tableAdapter
}

// formatTable lists every format readygap reads, in detection priority:
// when the sample lines of an input match two line formats equally often,
// or a JSON element matches two JSON formats, the earlier one wins. Adding a
// format is adding its row here, its adapter file, its tests and sample
// lines, and its row in docs/formats.md (TestREADMEFormatTable keeps it in
// step).
var formatTable = []FormatInfo{
	{
		ID: FormatGCPLogging, Family: FamilyGCP, json: gcpLogging{},
		Description: "Cloud Logging entries: global, regional and internal Application LB request logs (`statusDetails` or `proxyStatus`), Cloud Service Mesh (Istio) access logs, Kubernetes events from `logs/events`, health-check logs",
		HowToGet:    "`gcloud logging read 'resource.type=(\"http_load_balancer\" OR \"http_external_regional_lb_rule\" OR \"internal_http_lb_rule\") OR logName:\"logs/events\"' --freshness=2h --format=json` (a JSON array, newest first), a Logs Explorer download, a sink's NDJSON, an `entries:list` response",
	},
	{
		ID: FormatALBAccess, Family: FamilyALB, line: albAccess{},
		Description: "AWS ALB access logs, 25 to 34+ fields, IPv6, `ELBAccessLogTestFile`",
		HowToGet:    "the `.log.gz` objects from S3, as delivered",
	},
	{
		ID: FormatALBHealthCheck, Family: FamilyALB, line: albHealthCheck{},
		Description: "AWS ALB health-check logs (8 or 10 fields)",
		HowToGet:    "`health_check_log_*.log.gz` objects from S3",
	},
	{
		ID: FormatAWSLBC, Family: FamilyALB, line: awsLBC{}, ClusterClock: true,
		Description: "AWS Load Balancer Controller logs: target (de)registration",
		HowToGet:    "`kubectl logs -n kube-system deploy/aws-load-balancer-controller`, CloudWatch Logs",
	},
	{
		ID: FormatArgoRollouts, Family: FamilyKubernetes, line: argoRollouts{}, ClusterClock: true,
		Description: "Argo Rollouts controller logs (logrus text or `--logformat json`): the events it records (`event_reason`: Service switches, weights, steps, scaling, abort) and its `New weights:` lines, at the controller's time",
		HowToGet:    "`kubectl logs --timestamps -n argo-rollouts deploy/argo-rollouts`",
	},
	{
		ID: FormatIngressNginx, Family: FamilyIngressNginx, line: ingressNginx{},
		Description: "ingress-nginx controller output: access lines (current and pre-0.25 formats, or the `log-format-upstream` given with `--nginx-format`), nginx error lines, klog lines (`does not have any active Endpoint`; `Dynamic reconfiguration succeeded`, logged with `--v=2`, as when the proxy learned the endpoints; reloads)",
		HowToGet:    "`kubectl logs -n ingress-nginx deploy/ingress-nginx-controller [--timestamps]`",
	},
	// ingress-nginx's JSON log-format-upstream and the nginx formats that
	// log no upstream: after ingress-nginx, whose default lines they never
	// match, and before Envoy.
	{
		ID: FormatIngressNginxJSON, Family: FamilyIngressNginx, line: ingressNginxJSON{},
		Description: "ingress-nginx controller output with a JSON `log-format-upstream` (`log-format-escape-json`): recognised when its keys name the ingress-nginx variables (`status`, `upstream_addr`, `upstream_status`, a time), or any template given with `--nginx-format`; nginx error and klog lines among them are read too",
		HowToGet:    "`kubectl logs -n ingress-nginx deploy/ingress-nginx-controller [--timestamps]`",
	},
	{
		ID: FormatNginxAccess, Family: FamilyNginx, line: nginxAccess{},
		Description: "plain nginx `combined` and the NGINX Inc controller's default access lines: recognised, but they log no upstream, so each line is skipped naming the variables to add (`$upstream_addr $upstream_status`); with them added, give the format with `--nginx-format`",
		HowToGet:    "`kubectl logs -n nginx-ingress deploy/nginx-ingress` after adding `$upstream_addr $upstream_status` to the ConfigMap's `log-format`",
	},
	{
		ID: FormatTraefik, Family: FamilyTraefik, line: traefikAccess{},
		Description: "Traefik access logs (v2, v3): the default `common` format, whose status column is the origin's status up to v2.10.4 and the client's from v2.10.5, and `json`; Traefik's own log lines among them are counted and passed over. Its 404 without a router is a Service without endpoints (unless `allowEmptyServices`), its 502 a refused, reset or closed connection alike",
		HowToGet:    "`kubectl logs --timestamps -n kube-system deploy/traefik` (k3s), `kubectl logs --timestamps -n traefik deploy/traefik`, with `--accesslog=true` (and `--accesslog.format=json` for the host)",
	},
	{
		ID: FormatEnvoyAccess, Family: FamilyEnvoy, line: envoyText{},
		Description: "Envoy access logs in text: Envoy's default format (Contour, kgateway, plain Envoy), Istio's default (1.9+ and 1.3–1.8), any format string given with `--envoy-format`; a default line pasted without its leading `[START_TIME]` is read in order only; the proxy's own log lines are passed over",
		HowToGet:    "`kubectl logs --timestamps -n istio-system deploy/istio-ingressgateway`, `kubectl logs --timestamps POD -c istio-proxy`, `kubectl logs -n projectcontour ds/envoy -c envoy`",
	},
	{
		ID: FormatEnvoyJSON, Family: FamilyEnvoy, line: envoyJSON{},
		Description: "Envoy access logs as JSON lines: Envoy Gateway's default (string values up to v1.3, typed from v1.4), Istio's `accessLogEncoding: JSON`, Contour's `json` format, any dictionary given with `--envoy-format`",
		HowToGet:    "`kubectl logs --timestamps --tail=-1 -n envoy-gateway-system -l gateway.envoyproxy.io/owning-gateway-name=NAME -c envoy`",
	},
	// istiod after Envoy: the sidecar's agent writes lines of the same
	// shape among its proxy's access lines, which must win a tie.
	{
		ID: FormatIstiod, Family: FamilyEnvoy, line: istiod{}, ClusterClock: true,
		Description: "istiod (Istio's control plane) logs, text or `--log_as_json`: the moments it pushed endpoints to the proxies (`Push debounce stable`, `XDS: Pushing`, `EDS: PUSH for node:`, `has no endpoints`), read as when the proxies learned the change; other lines are passed over",
		HowToGet:    "`kubectl logs --timestamps -n istio-system deploy/istiod` (per-proxy `EDS: PUSH` lines of endpoint-only changes need `--log_output_level=ads:debug`)",
	},
	{
		ID: FormatK8sEvents, Family: FamilyKubernetes, json: k8sEvents{},
		Description: "Kubernetes events, core/v1 and events.k8s.io/v1, JSON or YAML",
		HowToGet:    "`kubectl get events -A -o json`",
	},
	{
		ID: FormatKubectlDescribe, Family: FamilyKubernetes, table: kubectlDescribe{},
		Description: "the Events table of `kubectl describe` (pods, ingresses, services, any object; kubectl 1.8+), whole or a few pasted rows, wrapped rows joined; ages (`16m`, `2m30s (x5 over 15m)`) are anchored with `--now`, else by the pod's `Start Time`, else read in order only",
		HowToGet:    "`kubectl describe pod POD`, `kubectl describe ingress NAME`; add `--now` with the time it was run",
	},
	{
		ID: FormatKubectlEvents, Family: FamilyKubernetes, table: kubectlEvents{},
		Description: "the table of `kubectl get events` (every column set since 1.8, `-o wide`, `-A`, `--watch`) and `kubectl events`, wrapped rows joined; ages are anchored with `--now`, else by the time in a wide row's event NAME, else read in order only",
		HowToGet:    "`kubectl get events -o wide` (prefer `-o json`, which keeps the times); add `--now` with the time it was run",
	},
	{
		ID: FormatK8sObjects, Family: FamilyKubernetes, json: k8sObjects{},
		Description: "Pods, Deployments, ReplicaSets, Services, EndpointSlices, Ingresses, IngressClasses, Namespaces, HorizontalPodAutoscalers, BackendConfigs, TargetGroupBindings, IngressClassParams; Gateways, HTTPRoutes, BackendTrafficPolicies, DestinationRules, VirtualServices, HTTPProxies, Istio's mesh ConfigMap; Traefik's IngressRoutes, Middlewares, ServersTransports and its Deployment's provider flags; Argo Rollouts and Flagger Canaries; JSON or YAML",
		HowToGet:    "`kubectl get deploy,rs,pods,svc,endpointslices,ingress -o yaml`; `kubectl get ingressclasses,ingressclassparams -o yaml`; `kubectl get gateways,httproutes,backendtrafficpolicies,destinationrules,virtualservices,httpproxies -A -o yaml`; `kubectl get ingressroutes,middlewares,serverstransports -A -o yaml`; `kubectl get rollouts.argoproj.io,canaries.flagger.app -A -o yaml`",
	},
	// The client's side: no load balancer's log, what users got.
	{
		ID: FormatFortio, Family: FamilyClient, line: fortio{},
		Description: "fortio's log (JSON lines, 1.55+): each failed request (`Non ok http code`, `Unable to connect`) as a client-side request; fortio logs no line for a request that did not fail",
		HowToGet:    "`fortio load -qps 20 -t 10m URL 2> fortio.log` during the rollout",
	},
	{
		ID: FormatFortioResult, Family: FamilyClient, json: fortioResult{},
		Description: "fortio's JSON result: recognised, its counts per status and its span stated in a warning; it has no time per request, so it gives no record (the log has one line per failure)",
		HowToGet:    "`fortio load -json result.json ... URL`",
	},
	{
		ID: FormatSiege, Family: FamilyClient, line: siege{},
		Description: "siege's verbose output: one client-side request per `HTTP/1.1 503  0.01 secs: ...` line, with `timestamp = true` its time (local, `--tz`), with `--csv` the time in the last field; without either in order only; `[error] socket: ...` lines as requests without a response",
		HowToGet:    "`siege -v -c 5 -t 10M URL > siege.log` with `timestamp = true` in `~/.siege/siege.conf`",
	},
	{
		ID: FormatCurlLoop, Family: FamilyClient, line: curlLoop{},
		Description: "a shell loop of curl: `[TIME] STATUS [numbers]` per line, TIME RFC 3339 or epoch seconds, STATUS curl's `%{http_code}` (`000`: no response); without a time in order only",
		HowToGet:    "`while true; do echo \"$(date -u +%FT%T.%3NZ) $(curl -s -o /dev/null -w '%{http_code} %{time_total}' URL)\"; sleep 0.2; done > curl.log`",
	},
}

// The adapters of the table by layout, in its order; detection tries them so.
var (
	lineAdapters  = adaptersOf(func(f FormatInfo) lineAdapter { return f.line })
	jsonAdapters  = adaptersOf(func(f FormatInfo) jsonAdapter { return f.json })
	tableAdapters = adaptersOf(func(f FormatInfo) tableAdapter { return f.table })
)

// adaptersOf returns the non-nil adapters pick finds in formatTable, in order.
func adaptersOf[A comparable](pick func(FormatInfo) A) []A {
	var zero A
	var out []A
	for _, f := range formatTable {
		if a := pick(f); a != zero {
			out = append(out, a)
		}
	}
	return out
}

// Formats describes every format readygap reads, in detection priority.
func Formats() []FormatInfo { return append([]FormatInfo(nil), formatTable...) }

// FormatIDs lists the ids of every format readygap reads, for help texts.
func FormatIDs() []string {
	ids := make([]string, len(formatTable))
	for i, f := range formatTable {
		ids[i] = string(f.ID)
	}
	return ids
}

// formatInfo returns the row of a format; the zero row for an unknown one.
func formatInfo(f Format) FormatInfo {
	for _, x := range formatTable {
		if x.ID == f {
			return x
		}
	}
	return FormatInfo{}
}

// FamilyOf returns the family of a format; "" for an unknown format.
func FamilyOf(f Format) Family { return formatInfo(f).Family }

// formatsHelp lists the formats readygap reads, for messages about unknown inputs.
func formatsHelp() string {
	return "readygap reads " + strings.Join(FormatIDs(), ", ") +
		" (gzip'd or not), also in these envelopes: " + envelopesHelp()
}
