// Package manifestgen writes many Kubernetes manifests at once, for the
// benchmarks and scripts that measure `readygap check` at scale: each
// workload is a Deployment with probes, ports and a preStop hook, and the
// Service that selects it; one in three also gets an ALB Ingress (in
// IngressGroups of 25, as ALBs are shared) and one in three an
// ingress-nginx Ingress, so that the checks follow paths from load
// balancers as well as bare Services. Workloads are spread over
// namespaces; one in four has its readiness probe on its admin port, and
// one in five sets its keep-alive on the command line. The output is
// deterministic.
package manifestgen

import (
	"bufio"
	"fmt"
	"io"
)

// Options shape the manifests.
type Options struct {
	// Workloads is how many Deployments (each with its Service) to write.
	Workloads int
	// Namespaces is how many namespaces they are spread over; 50 when 0.
	Namespaces int
}

// albGroupSize is how many ALB Ingresses share an IngressGroup: the ALB
// allows 100 rules per listener, and teams share one by tens.
const albGroupSize = 25

// defaultNamespaces spreads workloads as a large multi-tenant cluster does:
// hundreds of workloads per namespace at 10,000.
const defaultNamespaces = 50

// Write writes the manifests as one multi-document YAML stream.
func Write(w io.Writer, o Options) error {
	ns := o.Namespaces
	if ns <= 0 {
		ns = defaultNamespaces
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	for i := range o.Workloads {
		probePort, args := "http", "[]"
		if i%4 == 3 {
			probePort = "admin"
		}
		if i%5 == 4 {
			args = `["uvicorn", "app:app", "--timeout-keep-alive", "5"]`
		}
		fmt.Fprintf(bw, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
  labels: {app.kubernetes.io/name: app-%[1]d, team: team-%[2]d}
spec:
  replicas: %[3]d
  selector:
    matchLabels: {app: app-%[1]d}
  template:
    metadata:
      labels: {app: app-%[1]d, team: team-%[2]d}
    spec:
      terminationGracePeriodSeconds: 45
      containers:
        - name: app
          image: registry.example.com/app-%[1]d:1.%[3]d
          args: %[5]s
          ports:
            - {name: http, containerPort: 8080}
            - {name: admin, containerPort: 9090}
          readinessProbe:
            httpGet: {path: /ready, port: %[4]s}
            periodSeconds: 5
          lifecycle:
            preStop:
              sleep: {seconds: 15}
---
apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
spec:
  selector: {app: app-%[1]d}
  ports:
    - {name: http, port: 80, targetPort: http}
`, i, i%ns, 2+i%3, probePort, args)
		switch i % 3 {
		case 0:
			fmt.Fprintf(bw, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
  annotations:
    alb.ingress.kubernetes.io/target-type: ip
    alb.ingress.kubernetes.io/group.name: group-%[3]d
spec:
  ingressClassName: alb
  defaultBackend:
    service: {name: app-%[1]d, port: {name: http}}
`, i, i%ns, i/(3*albGroupSize))
		case 1:
			fmt.Fprintf(bw, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
spec:
  ingressClassName: nginx
  rules:
    - host: app-%[1]d.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service: {name: app-%[1]d, port: {number: 80}}
`, i, i%ns)
		}
	}
	return bw.Flush()
}
