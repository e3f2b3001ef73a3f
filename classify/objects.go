package classify

import (
	"slices"
	"sync"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Objects is a view of configuration facts read from Kubernetes objects:
// what the fixes and the static checks read about specs and load-balancer
// settings. A finding from logs sees every object read; a static check
// sees, for each path traffic takes to a workload, the objects that
// configure that path, so that the same helpers answer for that path.
// Where a helper takes the first object of a kind, order decides.
type Objects struct {
	// KubeVersion is the cluster's Kubernetes version, given or read;
	// zero when unknown. The fixes choose by it.
	KubeVersion sources.KubeVersion
	configs     []*sources.Config
	// targets are the workloads and the paths to them, linked once.
	targets     []*target
	targetsOnce sync.Once
	// index finds objects by the keys that link them, built once.
	index     *objectIndex
	indexOnce sync.Once
	// albGroups holds the Ingresses of each IngressGroup, gathered once.
	albGroups     map[string][]*sources.Config
	albGroupsOnce sync.Once
	// related holds each workload's linked objects (see Related).
	related     map[*sources.Config][]*sources.Config
	relatedOnce sync.Once
	// every is every path to every Service, linked once.
	every     []front
	everyOnce sync.Once
}

// NewObjects returns the view of configs, in their order.
func NewObjects(configs []*sources.Config) *Objects { return &Objects{configs: configs} }

// All returns every fact of the view, in order.
func (o *Objects) All() []*sources.Config { return o.configs }

// ConfigsOf returns the facts of one kind, in order, in a new slice.
func (o *Objects) ConfigsOf(kind string) []*sources.Config {
	return slices.Clone(o.indexOf().byKind[kind])
}

// objectsOf is the view of every object an analysis read.
func objectsOf(a *correlate.Analysis) *Objects {
	o := NewObjects(a.Configs)
	o.KubeVersion = a.Opts.KubeVersion
	return o
}
