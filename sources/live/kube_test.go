package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"
)

// kubeTestServer serves a namespace "shop" with one of each object, events
// inside and outside midnightWindow, and no BackendConfig CRD.
func kubeTestServer(t *testing.T) *livetest.Kube {
	k := livetest.NewKube(t)
	k.Paths["/api/v1/namespaces/shop"] = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"elbv2.k8s.aws/pod-readiness-gate-inject":"enabled"}}}`
	ev := func(name, reason, first, last string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"shop"},"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-7d9f-abc"},"reason":"` + reason +
			`","message":"Stopping container web","type":"Normal","source":{"component":"kubelet"},"firstTimestamp":"` + first + `","lastTimestamp":"` + last + `","count":1}`
	}
	k.List("/api/v1/namespaces/shop/events", "v1", "EventList",
		ev("a", "Killing", "2024-05-01T23:50:00Z", "2024-05-01T23:50:00Z"),
		ev("b", "Killing", "2024-05-01T22:00:00Z", "2024-05-01T22:10:00Z"), // before the window
		ev("c", "Killing", "2024-05-01T23:00:00Z", "2024-05-01T23:45:00Z")) // repeats into the window
	k.List("/api/v1/namespaces/shop/pods", "v1", "PodList",
		`{"metadata":{"name":"web-7d9f-abc","namespace":"shop","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u1","controller":true}]},"spec":{"containers":[{"name":"web","image":"web:2","ports":[{"containerPort":8080,"name":"http"}],"readinessProbe":{"httpGet":{"path":"/ready","port":"http"},"periodSeconds":5}}]},"status":{"phase":"Running","podIP":"10.0.12.34","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-01T23:48:00Z"}]}}`)
	k.List("/apis/apps/v1/namespaces/shop/replicasets", "apps/v1", "ReplicaSetList",
		`{"metadata":{"name":"web-7d9f","namespace":"shop"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:2"}]}}}}`)
	k.List("/apis/apps/v1/namespaces/shop/deployments", "apps/v1", "DeploymentList",
		`{"metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":1}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:2"}]}}}}`)
	k.List("/api/v1/namespaces/shop/services", "v1", "ServiceList",
		`{"metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"},"ports":[{"port":80,"targetPort":"http"}]}}`)
	k.List("/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices", "discovery.k8s.io/v1", "EndpointSliceList")
	k.List("/apis/networking.k8s.io/v1/namespaces/shop/ingresses", "networking.k8s.io/v1", "IngressList")
	k.List("/apis/elbv2.k8s.aws/v1beta1/namespaces/shop/targetgroupbindings", "elbv2.k8s.aws/v1beta1", "TargetGroupBindingList",
		`{"metadata":{"name":"k8s-shop-web-a1b2c3d4e5","namespace":"shop"},"spec":{"serviceRef":{"name":"web","port":80},"targetGroupARN":"arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef","targetType":"ip"}}`)
	return k
}

func TestKubernetesFetch(t *testing.T) {
	srv := kubeTestServer(t)
	cfgDir := t.TempDir()
	k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, cfgDir, "kube-token-secret")}
	if err := k.Resolve(); err != nil || k.Namespace != "shop" {
		t.Fatalf("resolve: %v, namespace %q", err, k.Namespace)
	}
	dir := t.TempDir()
	rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r[:strings.Index(r, " auth=")])
	}
	want := []string{
		"GET /api/v1/namespaces/shop/events?limit=500",
		"GET /api/v1/namespaces/shop?",
		"GET /version?",
		"GET /api/v1/namespaces/shop/pods?limit=500",
		"GET /apis/apps/v1/namespaces/shop/replicasets?limit=500",
		"GET /apis/apps/v1/namespaces/shop/deployments?limit=500",
		"GET /api/v1/namespaces/shop/services?limit=500",
		"GET /apis/discovery.k8s.io/v1/namespaces/shop/endpointslices?limit=500",
		"GET /apis/networking.k8s.io/v1/namespaces/shop/ingresses?limit=500",
		"GET /apis/cloud.google.com/v1/namespaces/shop/backendconfigs?limit=500",
		"GET /apis/elbv2.k8s.aws/v1beta1/namespaces/shop/targetgroupbindings?limit=500",
		"GET /apis/gateway.networking.k8s.io/v1/namespaces/shop/gateways?limit=500",
		"GET /apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes?limit=500",
		"GET /apis/gateway.envoyproxy.io/v1alpha1/namespaces/shop/backendtrafficpolicies?limit=500",
		"GET /apis/networking.istio.io/v1/namespaces/shop/destinationrules?limit=500",
		"GET /apis/networking.istio.io/v1/namespaces/shop/virtualservices?limit=500",
		"GET /apis/projectcontour.io/v1/namespaces/shop/httpproxies?limit=500",
		"GET /apis/argoproj.io/v1alpha1/namespaces/shop/rollouts?limit=500",
		"GET /apis/flagger.app/v1beta1/namespaces/shop/canaries?limit=500",
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("calls\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(rep.Notes, []string{"not installed, so not listed: backendconfigs.cloud.google.com, gateways.gateway.networking.k8s.io, httproutes.gateway.networking.k8s.io, " +
		"backendtrafficpolicies.gateway.envoyproxy.io, destinationrules.networking.istio.io, virtualservices.networking.istio.io, httpproxies.projectcontour.io, " +
		"rollouts.argoproj.io, canaries.flagger.app"}) || rep.Records != 2+1+5 {
		t.Fatalf("report %+v", rep)
	}
	if rep.ServerVersion != "v1.29.3-eks-ae9a62a" {
		t.Errorf("server version %q, want the /version gitVersion", rep.ServerVersion)
	}
	var list struct {
		APIVersion, Kind string
		Items            []struct{ APIVersion, Kind string }
	}
	b, _ := os.ReadFile(filepath.Join(dir, "kube/objects.json"))
	if err := json.Unmarshal(b, &list); err != nil || list.Kind != "List" || len(list.Items) != 6 {
		t.Fatalf("%v %s", err, b)
	}
	for _, it := range list.Items {
		if it.APIVersion == "" || it.Kind == "" {
			t.Fatalf("item without apiVersion/kind in %s", b)
		}
	}
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return nopHandler{} })
	if err != nil || len(res.Inputs) != 2 || res.Inputs[0].Format != sources.FormatK8sEvents || res.Inputs[0].Records != 2 ||
		res.Inputs[1].Format != sources.FormatK8sObjects || res.Inputs[1].Skipped != 0 {
		t.Fatalf("read back: %v %+v %v", err, res.Inputs, res.Warnings)
	}
}

func TestKubernetesErrors(t *testing.T) {
	srv := kubeTestServer(t)
	srv.Forbidden["/api/v1/namespaces/shop/pods"] = true
	srv.Forbidden["/api/v1/namespaces/shop"] = true
	k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t")}
	rep, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	if err == nil || err.Error() != `kubernetes: RBAC forbids get namespaces, list pods in namespace shop: grant each verb on its resource (a Role in the namespace, or the ClusterRole in docs/triage.md)` {
		t.Fatalf("error = %v", err)
	}
	if len(rep.Files) != 2 || rep.Items[1].Status != bundle.ItemFailed || !rep.Items[1].Optional || rep.Items[2].Status != bundle.ItemFailed || rep.Items[3].Status != bundle.ItemComplete {
		t.Fatalf("the other lists were not written: %+v", rep)
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	t.Setenv("HOME", t.TempDir())
	if err := (&Kubernetes{}).Resolve(); err != ErrKubeNotConfigured {
		t.Fatalf("no kubeconfig: %v", err)
	}
	if !kubeEventMayOverlap(map[string]any{}, midnightWindow) {
		t.Fatal("an event without times must be kept")
	}
}
