// Package podlist writes a large, realistic Pod List as `kubectl get pods
// -A -o json` prints it, for the benchmarks and scripts that measure how
// readygap reads Kubernetes objects at cluster scale. Its pods belong to a
// few dozen Deployments, some of them in the middle of a rollout (two
// ReplicaSets), and carry what a real pod carries: containers with
// environment, probes, resources, ports and mounts, a projected service
// account volume named per pod, tolerations, and a status with conditions,
// container statuses and IPs. The output is deterministic for a seed.
package podlist

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Options shape a List.
type Options struct {
	// Pods is how many pods the List holds.
	Pods int
	// Deployments is how many Deployments own them, spread over
	// namespaces; 40 when 0.
	Deployments int
	// End is when the newest pod was created; the pods' creations are
	// spread over the week before it.
	End time.Time
	// Seed makes the uids and the choice of templates.
	Seed uint64
	// Compact writes the List as readygap triage writes a bundle's
	// objects (kube/objects.json): one compact item per line. Otherwise it
	// is indented as kubectl prints it, four spaces a level.
	Compact bool
}

// Namespace prefixes the namespaces of the List's pods ("bulk-0" ...), so
// that a test can tell them from the pods of a fixture read beside them.
const Namespace = "bulk-"

const (
	// defaultDeployments is a mid-sized cluster's count of workloads.
	defaultDeployments = 40
	// namespaces is how many namespaces the Deployments are spread over.
	namespaces = 8
	// podsPerNode is a typical density of application pods per node
	// (the EKS m5.xlarge limit is 58 pods, GKE's default 110).
	podsPerNode = 30
	// span is how long before End the pods were created.
	span = 7 * 24 * time.Hour
)

// Write writes the List to w.
func Write(w io.Writer, o Options) error {
	if o.Deployments <= 0 {
		o.Deployments = defaultDeployments
	}
	if o.End.IsZero() {
		o.End = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	}
	g := &gen{rnd: rand.New(rand.NewPCG(o.Seed, 7)), o: o}
	for d := range o.Deployments {
		g.deployments = append(g.deployments, g.deployment(d))
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if o.Compact {
		bw.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[`)
	} else {
		bw.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
	}
	for i := range o.Pods {
		if i > 0 {
			bw.WriteByte(',')
		}
		var b []byte
		var err error
		if o.Compact {
			b, err = json.Marshal(g.pod(i))
			bw.WriteByte('\n')
		} else {
			b, err = json.MarshalIndent(g.pod(i), "        ", "    ")
			bw.WriteString("\n        ")
		}
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	switch {
	case o.Compact:
		bw.WriteString("\n]}\n")
	case o.Pods > 0:
		bw.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	default:
		bw.WriteString("],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	}
	return bw.Flush()
}

type gen struct {
	rnd         *rand.Rand
	o           Options
	deployments []*deployment
}

// deployment is one workload and its one or two pod templates.
type deployment struct {
	namespace, name string
	hashes          []string
	rsUIDs          []string
	sidecar         bool
	readinessGate   bool
	preStop         bool
	port            int
}

func (g *gen) deployment(d int) *deployment {
	names := []string{"web", "api", "checkout", "cart", "search", "auth", "payments", "catalog", "orders", "profile"}
	dp := &deployment{
		namespace:     fmt.Sprintf("%s%d", Namespace, d%namespaces),
		name:          fmt.Sprintf("%s-%d", names[d%len(names)], d),
		sidecar:       d%2 == 0,
		readinessGate: d%3 == 0,
		preStop:       d%4 != 1,
		port:          []int{8080, 3000, 8000, 9090}[d%4],
	}
	// Every fifth Deployment is in the middle of a rollout.
	templates := 1
	if d%5 == 0 {
		templates = 2
	}
	for range templates {
		dp.hashes = append(dp.hashes, g.alnum(10))
		dp.rsUIDs = append(dp.rsUIDs, g.uid())
	}
	return dp
}

const alnum = "bcdfghjklmnpqrstvwxz2456789" // the alphabet of generated names

func (g *gen) alnum(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[g.rnd.IntN(len(alnum))]
	}
	return string(b)
}

func (g *gen) uid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", g.rnd.Uint32(), g.rnd.IntN(1<<16), g.rnd.IntN(1<<12),
		0x8000|g.rnd.IntN(1<<14), g.rnd.Uint64()&(1<<48-1))
}

// obj is a JSON object; encoding/json writes its keys sorted, as kubectl
// does for the objects it prints.
type obj = map[string]any

// pod builds pod i.
func (g *gen) pod(i int) obj {
	d := g.deployments[i%len(g.deployments)]
	t := (i / len(g.deployments)) % len(d.hashes)
	hash := d.hashes[t]
	name := d.name + "-" + hash + "-" + g.alnum(5)
	created := g.o.End.Add(-span + time.Duration(float64(span)*float64(i)/float64(max(g.o.Pods, 1)))).Truncate(time.Second)
	scheduled := created
	started := created.Add(3 * time.Second)
	ready := created.Add(9 * time.Second)
	ip := fmt.Sprintf("100.%d.%d.%d", 64+i>>16, i>>8&255, i&255)
	node := i / podsPerNode
	hostIP := fmt.Sprintf("10.%d.%d.%d", 16+node>>16, node>>8&255, node&255)
	nodeName := fmt.Sprintf("ip-%d-%d-%d-%d.ec2.internal", 10, 16+node>>16, node>>8&255, node&255)
	token := "kube-api-access-" + g.alnum(5)
	labels := obj{"app": d.name, "app.kubernetes.io/name": d.name, "app.kubernetes.io/part-of": "shop", "pod-template-hash": hash}
	meta := obj{
		"annotations":       obj{"kubectl.kubernetes.io/restartedAt": "2026-02-01T09:00:00Z", "prometheus.io/scrape": "true", "prometheus.io/port": "9102"},
		"creationTimestamp": stamp(created),
		"generateName":      d.name + "-" + hash + "-",
		"labels":            labels,
		"name":              name,
		"namespace":         d.namespace,
		"ownerReferences": []any{obj{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true,
			"kind": "ReplicaSet", "name": d.name + "-" + hash, "uid": d.rsUIDs[t]}},
		"resourceVersion": fmt.Sprint(1000000 + i*7),
		"uid":             g.uid(),
	}
	containers := []any{g.appContainer(d, t, token)}
	statuses := []any{g.containerStatus(d.name, appImage(d, t), started)}
	if d.sidecar {
		containers = append(containers, sidecarContainer(token))
		statuses = append(statuses, g.containerStatus("log-shipper", sidecarImage, started))
	}
	spec := obj{
		"containers":                    containers,
		"dnsPolicy":                     "ClusterFirst",
		"enableServiceLinks":            true,
		"nodeName":                      nodeName,
		"preemptionPolicy":              "PreemptLowerPriority",
		"priority":                      0,
		"restartPolicy":                 "Always",
		"schedulerName":                 "default-scheduler",
		"securityContext":               obj{"fsGroup": 1000, "runAsNonRoot": true},
		"serviceAccount":                d.name,
		"serviceAccountName":            d.name,
		"terminationGracePeriodSeconds": 45,
		"tolerations": []any{
			obj{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
			obj{"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
		},
		"topologySpreadConstraints": []any{obj{"labelSelector": obj{"matchLabels": obj{"app": d.name}},
			"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}},
		"volumes": []any{
			obj{"configMap": obj{"defaultMode": 420, "name": d.name + "-config"}, "name": "config"},
			obj{"name": "tmp", "emptyDir": obj{}},
			obj{"name": token, "projected": obj{"defaultMode": 420, "sources": []any{
				obj{"serviceAccountToken": obj{"expirationSeconds": 3607, "path": "token"}},
				obj{"configMap": obj{"items": []any{obj{"key": "ca.crt", "path": "ca.crt"}}, "name": "kube-root-ca.crt"}},
				obj{"downwardAPI": obj{"items": []any{obj{"fieldRef": obj{"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}}}},
			}}},
		},
	}
	conditions := []any{
		condition("PodReadyToStartContainers", started),
		condition("Initialized", scheduled),
		condition("Ready", ready),
		condition("ContainersReady", ready),
		condition("PodScheduled", scheduled),
	}
	if d.readinessGate {
		gate := "target-health.elbv2.k8s.aws/k8s-" + d.name + "-" + d.hashes[0][:6]
		spec["readinessGates"] = []any{obj{"conditionType": gate}}
		conditions = append(conditions, obj{"lastProbeTime": nil, "lastTransitionTime": stamp(ready.Add(-time.Second)),
			"message": "Target registration is in progress", "reason": "Elb.RegistrationInProgress", "status": "True", "type": gate})
	}
	status := obj{
		"conditions":        conditions,
		"containerStatuses": statuses,
		"hostIP":            hostIP,
		"hostIPs":           []any{obj{"ip": hostIP}},
		"phase":             "Running",
		"podIP":             ip,
		"podIPs":            []any{obj{"ip": ip}},
		"qosClass":          "Burstable",
		"startTime":         stamp(scheduled),
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
}

// appContainer is a Deployment's application container in template t.
func (g *gen) appContainer(d *deployment, t int, token string) obj {
	probe := func(path string, period, failures int) obj {
		return obj{"failureThreshold": failures, "httpGet": obj{"path": path, "port": "http", "scheme": "HTTP"},
			"periodSeconds": period, "successThreshold": 1, "timeoutSeconds": 2}
	}
	env := []any{
		obj{"name": "APP_ENV", "value": "production"},
		obj{"name": "PORT", "value": fmt.Sprint(d.port)},
		obj{"name": "LOG_LEVEL", "value": "info"},
		obj{"name": "LOG_FORMAT", "value": "json"},
		obj{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability.svc.cluster.local:4317"},
		obj{"name": "OTEL_SERVICE_NAME", "value": d.name},
		obj{"name": "DATABASE_HOST", "value": d.name + "-db.rds.internal"},
		obj{"name": "DATABASE_PASSWORD", "valueFrom": obj{"secretKeyRef": obj{"key": "password", "name": d.name + "-db"}}},
		obj{"name": "REDIS_URL", "value": "redis://redis-master.cache.svc.cluster.local:6379/0"},
		obj{"name": "POD_NAME", "valueFrom": obj{"fieldRef": obj{"apiVersion": "v1", "fieldPath": "metadata.name"}}},
		obj{"name": "POD_IP", "valueFrom": obj{"fieldRef": obj{"apiVersion": "v1", "fieldPath": "status.podIP"}}},
		obj{"name": "GOMEMLIMIT", "valueFrom": obj{"resourceFieldRef": obj{"divisor": "0", "resource": "limits.memory"}}},
	}
	c := obj{
		"env":             env,
		"image":           appImage(d, t),
		"imagePullPolicy": "IfNotPresent",
		"livenessProbe":   probe("/healthz", 10, 3),
		"name":            d.name,
		"ports": []any{
			obj{"containerPort": d.port, "name": "http", "protocol": "TCP"},
			obj{"containerPort": 9102, "name": "metrics", "protocol": "TCP"},
		},
		"readinessProbe": probe("/ready", 5, 3),
		"resources":      obj{"limits": obj{"memory": "512Mi"}, "requests": obj{"cpu": "250m", "memory": "256Mi"}},
		"securityContext": obj{"allowPrivilegeEscalation": false, "capabilities": obj{"drop": []any{"ALL"}},
			"readOnlyRootFilesystem": true},
		"startupProbe":             probe("/healthz", 2, 30),
		"terminationMessagePath":   "/dev/termination-log",
		"terminationMessagePolicy": "File",
		"volumeMounts": []any{
			obj{"mountPath": "/etc/app", "name": "config", "readOnly": true},
			obj{"mountPath": "/tmp", "name": "tmp"},
			obj{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": token, "readOnly": true},
		},
	}
	if d.preStop {
		c["lifecycle"] = obj{"preStop": obj{"exec": obj{"command": []any{"/bin/sh", "-c", "sleep 15"}}}}
	}
	return c
}

// sidecarContainer is a log shipper beside the application.
func sidecarContainer(token string) obj {
	return obj{
		"image":                    sidecarImage,
		"imagePullPolicy":          "IfNotPresent",
		"name":                     "log-shipper",
		"resources":                obj{"limits": obj{"memory": "128Mi"}, "requests": obj{"cpu": "50m", "memory": "64Mi"}},
		"terminationMessagePath":   "/dev/termination-log",
		"terminationMessagePolicy": "File",
		"volumeMounts": []any{
			obj{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": token, "readOnly": true},
		},
	}
}

// appImage is the image of a Deployment's template t.
func appImage(d *deployment, t int) string {
	return fmt.Sprintf("registry.example.com/shop/%s:v1.%d.0", d.name, 40+t)
}

// sidecarImage is the log shipper's image.
const sidecarImage = "public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.2"

// containerStatus is the status of a running container; its id is the
// pod's own, its image digest the image's.
func (g *gen) containerStatus(name, image string, started time.Time) obj {
	return obj{
		"containerID":  fmt.Sprintf("containerd://%016x%016x%016x%016x", g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64()),
		"image":        image,
		"imageID":      fmt.Sprintf("%s@sha256:%x", image, sha256.Sum256([]byte(image))),
		"lastState":    obj{},
		"name":         name,
		"ready":        true,
		"restartCount": 0,
		"started":      true,
		"state":        obj{"running": obj{"startedAt": stamp(started)}},
	}
}

func condition(typ string, at time.Time) obj {
	return obj{"lastProbeTime": nil, "lastTransitionTime": stamp(at), "status": "True", "type": typ}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
