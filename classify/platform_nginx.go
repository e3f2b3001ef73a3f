package classify

import (
	"fmt"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// nginxPlatform is the ingress-nginx controller: it sends to pod IPs from
// inside the cluster, settled by the Ingress and the controller's
// ConfigMap.
type nginxPlatform struct{ genericPlatform }

func (nginxPlatform) family() sources.Family    { return sources.FamilyIngressNginx }
func (nginxPlatform) ingressController() string { return ingressNginxController }

// ingressClass: a class naming nginx, or the controller's annotations.
func (nginxPlatform) ingressClass(class string, ann map[string]string, _ *sources.Service) bool {
	return strings.Contains(class, "nginx") || hasKeyPrefix(ann, "nginx.ingress.kubernetes.io/")
}

// ingressObjects are the controller's ConfigMaps read.
func (nginxPlatform) ingressObjects(_ *front, x *objectIndex) []*sources.Config {
	return x.proxyConfigMaps
}

func (nginxPlatform) titleNoun() string { return "ingress-nginx" }

func (nginxPlatform) lagReason(healthCheck) string {
	return ": the proxy had no endpoint to send requests to while the rollout replaced the pods."
}

func (nginxPlatform) stopPropagation() time.Duration { return nginxStopPropagation }

// idleTimeout is upstream-keepalive-timeout from the controller's
// ConfigMap, else its default.
func (nginxPlatform) idleTimeout(objs *Objects, _ []*sources.Config) Timeout {
	for _, c := range objs.indexOf().proxyConfigMaps {
		if c.Proxy.UpstreamKeepaliveTimeoutSec != nil {
			return Timeout{What: "ingress-nginx upstream-keepalive-timeout", Seconds: float64(*c.Proxy.UpstreamKeepaliveTimeoutSec),
				Source: fmt.Sprintf("ConfigMap %s/%s", c.Namespace, c.Name)}
		}
	}
	return Timeout{What: "ingress-nginx upstream-keepalive-timeout", Seconds: nginxUpstreamKeepalive, Source: "the ingress-nginx default"}
}

func (nginxPlatform) idleChecked() bool { return true }

// idleFix lowers upstream-keepalive-timeout in the controller's ConfigMap
// (the first read by name, else the one its Helm chart installs).
func (nginxPlatform) idleFix(objs *Objects, _ workload, _ Timeout, lower int) (Fix, bool) {
	ns, name := "ingress-nginx", "ingress-nginx-controller"
	if cms := proxyConfigMaps(objs); len(cms) > 0 {
		ns, name = cms[0].Namespace, cms[0].Name
	}
	return Fix{
		Title:  fmt.Sprintf("Or let ingress-nginx drop idle upstream connections after %d s", lower),
		Why:    "upstream-keepalive-timeout below the app's keep-alive makes nginx close an idle connection before the app does.",
		Patch:  objectPatch("v1", "ConfigMap", ns, name, nil, nil).with("data", map[string]any{"upstream-keepalive-timeout": fmt.Sprint(lower)}),
		AtMost: true,
	}, true
}

// rolloutRouting implements platform: Argo Rollouts' nginx routing, which
// makes a canary Ingress beside the stable one.
func (nginxPlatform) rolloutRouting(string) map[string]any {
	return map[string]any{"nginx": map[string]any{"stableIngress": placeholderName("Ingress")}}
}
