package sources

import (
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Config facts of Traefik (v2 traefik.containo.us, v3 traefik.io): its
// IngressRoutes, Middlewares and ServersTransports, and the provider flags
// of a Traefik container. Each decoder reads only the fields it keeps,
// with the field names of Traefik's CRDs
// (pkg/provider/kubernetes/crd/traefikio/v1alpha1).

// IngressRoute holds a Traefik IngressRoute.
type IngressRoute struct {
	Routes []IngressRouteRoute
}

// IngressRouteRoute is one entry of an IngressRoute's spec.routes.
type IngressRouteRoute struct {
	// Match is the route's rule as written (`Host(...) && PathPrefix(...)`).
	Match string
	// Services are the route's services; Kind "" or "Service" is a
	// Kubernetes Service, TraefikService Traefik's own.
	Services []IngressRouteService
	// Middlewares are the names (namespace/name, or name in the route's
	// namespace) of the route's middlewares.
	Middlewares []string
}

// IngressRouteService is one service of an IngressRoute route.
type IngressRouteService struct {
	Kind, Namespace, Name string
	// Port is the Service port by number; PortName by name.
	Port     int
	PortName string
	// ServersTransport names the ServersTransport its connections use; ""
	// for Traefik's default transport.
	ServersTransport string
}

// TraefikMiddleware holds what readygap reads of a Traefik Middleware.
type TraefikMiddleware struct {
	// Retry is its retry middleware; nil for another kind.
	Retry *ProxyRetry
}

// ServersTransport holds what readygap reads of a Traefik
// ServersTransport.
type ServersTransport struct {
	// IdleConnTimeout is spec.forwardingTimeouts.idleConnTimeout; nil when
	// unset (Traefik's default, 90 s, applies).
	IdleConnTimeout *time.Duration
}

// TraefikProvider is what a Traefik container's flags say of its
// Kubernetes providers.
type TraefikProvider struct {
	// AllowEmptyServices is true when either provider keeps the router of
	// a Service without endpoints (--providers.kubernetesingress
	// .allowEmptyServices, --providers.kubernetescrd.allowEmptyServices):
	// Traefik then answers 503 for it instead of 404.
	AllowEmptyServices bool
	// IdleConnTimeout is --serversTransport.forwardingTimeouts
	// .idleConnTimeout; nil when unset (90 s).
	IdleConnTimeout *time.Duration
}

// traefikRoute is the part of an IngressRoute readygap keeps.
type traefikRoute struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Routes []struct {
			Match    string `json:"match"`
			Services []struct {
				Kind             string             `json:"kind"`
				Namespace        string             `json:"namespace"`
				Name             string             `json:"name"`
				Port             intstr.IntOrString `json:"port"`
				ServersTransport string             `json:"serversTransport"`
			} `json:"services"`
			Middlewares []struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"middlewares"`
		} `json:"routes"`
	} `json:"spec"`
}

func decodeIngressRoute(elem []byte, c *Config, out *Emitter) error {
	var r traefikRoute
	if err := json.Unmarshal(elem, &r); err != nil {
		return err
	}
	setMeta(c, &r.Metadata)
	f := &IngressRoute{}
	for _, rt := range r.Spec.Routes {
		fr := IngressRouteRoute{Match: rt.Match}
		for _, s := range rt.Services {
			svc := IngressRouteService{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, ServersTransport: s.ServersTransport}
			if s.Port.Type == intstr.Int {
				svc.Port = s.Port.IntValue()
			} else {
				svc.PortName = s.Port.StrVal
			}
			fr.Services = append(fr.Services, svc)
		}
		for _, m := range rt.Middlewares {
			name := m.Name
			if m.Namespace != "" {
				name = m.Namespace + "/" + m.Name
			}
			fr.Middlewares = append(fr.Middlewares, name)
		}
		f.Routes = append(f.Routes, fr)
	}
	c.IngressRoute = f
	out.Config(c)
	return nil
}

func decodeTraefikMiddleware(elem []byte, c *Config, out *Emitter) error {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Retry *struct {
				Attempts int `json:"attempts"`
			} `json:"retry"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(elem, &m); err != nil {
		return err
	}
	setMeta(c, &m.Metadata)
	c.TraefikMiddleware = &TraefikMiddleware{}
	if r := m.Spec.Retry; r != nil {
		// Traefik's attempts count the first try (pkg/middlewares/retry).
		n := max(r.Attempts-1, 0)
		c.TraefikMiddleware.Retry = &ProxyRetry{Retries: &n}
	}
	out.Config(c)
	return nil
}

func decodeServersTransport(elem []byte, c *Config, out *Emitter) error {
	var t struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			ForwardingTimeouts *struct {
				IdleConnTimeout *intstr.IntOrString `json:"idleConnTimeout"`
			} `json:"forwardingTimeouts"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(elem, &t); err != nil {
		return err
	}
	setMeta(c, &t.Metadata)
	c.ServersTransport = &ServersTransport{}
	if ft := t.Spec.ForwardingTimeouts; ft != nil && ft.IdleConnTimeout != nil {
		c.ServersTransport.IdleConnTimeout = traefikDuration(ft.IdleConnTimeout.String())
	}
	out.Config(c)
	return nil
}

// traefikDuration reads a Traefik duration: a Go duration ("90s"), or a
// number of seconds (ptypes.Duration reads a bare number so).
func traefikDuration(s string) *time.Duration {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return &d
	}
	if n, err := time.ParseDuration(s + "s"); err == nil {
		return &n
	}
	return nil
}

// traefikProviderFacts reads the provider flags of a container that runs
// Traefik; nil for any other.
func traefikProviderFacts(c *corev1.Container) *TraefikProvider {
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if !strings.Contains(c.Image, "traefik") && !runs(argv, "traefik") {
		return nil
	}
	p := &TraefikProvider{}
	for _, a := range argv {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch strings.ToLower(name) {
		case "providers.kubernetesingress.allowemptyservices", "providers.kubernetescrd.allowemptyservices":
			if value == "" || strings.EqualFold(value, "true") {
				p.AllowEmptyServices = true
			}
		case "serverstransport.forwardingtimeouts.idleconntimeout":
			p.IdleConnTimeout = traefikDuration(value)
		}
	}
	return p
}
