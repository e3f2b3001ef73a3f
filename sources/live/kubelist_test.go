package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"
)

func TestReadKubeList(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		max        int64
		names      string // the items' names read, joined by ","
		cont       string
		items      int
		err        string // in the error; "" for none
	}{
		{name: "as the API server writes it", body: `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"9","continue":"c2"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`,
			names: "a,b", cont: "c2", items: 2},
		{name: "metadata after the items", body: `{"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"next"},"kind":"PodList"}`, names: "a", cont: "next", items: 1},
		{name: "null and empty items", body: `{"items":null,"metadata":{}}`},
		{name: "a null item is counted, not kept", body: `{"items":[null,{"metadata":{"name":"a"}}]}`, names: "a", items: 2},
		{name: "numbers kept as written", body: `{"items":[{"metadata":{"name":"12345678901234567890"},"n":12345678901234567890}]}`, names: "12345678901234567890", items: 1},
		{name: "an item at the bound", body: `{"items":[{"metadata":{"name":"` + strings.Repeat("a", 64-24) + `"}}]}`, max: 64, names: strings.Repeat("a", 64-24), items: 1},
		{name: "an item past the bound", body: `{"items":[{"metadata":{"name":"` + strings.Repeat("a", 64-23) + `"}}]}`, max: 64, err: "sent an object larger than 64 B"},
		{name: "many items each under the bound", body: `{"items":[` + strings.Repeat(`{"metadata":{"name":"a"}},`, 100) + `{"metadata":{"name":"b"}}]}`, max: 64,
			names: strings.Repeat("a,", 100) + "b", items: 101},
		{name: "a huge key", body: `{"` + strings.Repeat("k", 200) + `":1,"items":[]}`, max: 64, err: "larger than 64 B"},
		{name: "a huge continue token", body: `{"metadata":{"continue":"` + strings.Repeat("c", 200) + `"},"items":[]}`, max: 64, err: "larger than 64 B"},
		{name: "an item that is no object", body: `{"items":["pod"]}`, err: "cannot unmarshal string"},
		{name: "items that are no array", body: `{"items":{"a":1}}`, err: "items is {, not an array"},
		{name: "not a List", body: `[1]`, err: `[ where { was expected`},
		{name: "cut short", body: `{"items":[{"metadata":{"name":"a"}},{"metadata":`, names: "a", items: 1, err: "unexpected EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = kubeMaxItemBytes
			}
			var names []string
			page, err := readKubeList(strings.NewReader(tt.body), "https://api", max, func(obj map[string]any) error {
				md, _ := obj["metadata"].(map[string]any)
				names = append(names, fmt.Sprint(md["name"]))
				return nil
			})
			if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if got := strings.Join(names, ","); got != tt.names || (tt.err == "" && (page.Continue != tt.cont || page.Items != tt.items)) {
				t.Fatalf("read %q, %+v; want %q, continue %q, %d items", got, page, tt.names, tt.cont, tt.items)
			}
		})
	}
	var te *ItemTooLargeError
	_, err := readKubeList(strings.NewReader(`{"items":[{"a":"`+strings.Repeat("x", 100)+`"}]}`), "https://api", 64, func(map[string]any) error { return nil })
	if !errors.As(err, &te) || te.Endpoint != "https://api" || te.Limit != 64 {
		t.Fatalf("error %v, want an ItemTooLargeError", err)
	}
}

// heapWatch measures how far the heap grew while it ran: the larger of
// the growth of HeapSys, the heap the runtime obtained from the system,
// which never shrinks (so no moment is missed, but a heap already grown by
// an earlier test hides growth within it), and the peak of HeapInuse
// sampled every millisecond.
type heapWatch struct {
	base runtime.MemStats
	peak atomic.Uint64
	done chan struct{}
}

// watchHeap starts a heapWatch after a collection.
func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{done: make(chan struct{})}
	runtime.ReadMemStats(&w.base)
	go func() {
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > w.peak.Load() {
				w.peak.Store(m.HeapInuse)
			}
			select {
			case <-w.done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return w
}

// grew stops w and returns how far the heap grew, in bytes.
func (w *heapWatch) grew() int64 {
	close(w.done)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return max(int64(m.HeapSys)-int64(w.base.HeapSys), int64(w.peak.Load())-int64(w.base.HeapInuse))
}

// kubeMemoryBound is the most the Kubernetes source's heap may grow by,
// whatever the API server sends: the 256 MB for the whole command.
const kubeMemoryBound = 256 << 20

// hostileBytes is how much a hostile list answer sends: 2 GB with
// READYGAP_TRIAGE_MEMORY=1, else 512 MB (enough to fail the bound without).
func hostileBytes() int64 {
	if os.Getenv("READYGAP_TRIAGE_MEMORY") != "" {
		return 2 << 30
	}
	return 512 << 20
}

// endless serves a list answer: head, then body(i) for i = 0, 1, ... until
// total bytes were sent or the client went away, then tail; it reports the
// bytes sent to sent.
func endless(head string, body func(i int) string, tail string, total int64, sent *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 256<<10)
		n, _ := bw.WriteString(head)
		written := int64(n)
		for i := 0; written < total; i++ {
			n, err := bw.WriteString(body(i))
			written += int64(n)
			if err != nil {
				break
			}
		}
		bw.WriteString(tail)
		bw.Flush()
		sent.Store(written)
	}
}

// hostilePods serves the pods of kubeTestServer's namespace with h.
func hostilePods(t *testing.T, h http.HandlerFunc) (*livetest.Kube, *Kubernetes) {
	srv := kubeTestServer(t)
	front := newKubeFront(t, srv, "/api/v1/namespaces/shop/pods", h)
	return srv, &Kubernetes{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), front, "t"), Timeouts: Timeouts{Idle: 30 * time.Second}}
}

// newKubeFront starts a server answering path with h and everything else
// as srv does; it returns its URL.
func newKubeFront(t *testing.T, srv *livetest.Kube, path string, h http.HandlerFunc) string {
	mux := http.NewServeMux()
	mux.Handle(path, h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { proxyTo(t, w, r, srv.URL+r.URL.Path) })
	ts := newLoopbackServer(t, mux)
	return ts
}

// newLoopbackServer starts an HTTP server with h; it stops when t ends.
func newLoopbackServer(t *testing.T, h http.Handler) string {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// podItem is a valid pod of about 700 bytes, named by i.
func podItem(i int) string {
	return fmt.Sprintf(`{"metadata":{"name":"web-%08d","namespace":"shop","uid":"%08x-0000-4000-8000-000000000000","labels":{"app":"web","pod-template-hash":"7d9f"},`+
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u1","controller":true}]},`+
		`"spec":{"containers":[{"name":"web","image":"registry.example.com/web:2","ports":[{"containerPort":8080,"name":"http"}],`+
		`"readinessProbe":{"httpGet":{"path":"/ready","port":"http"},"periodSeconds":5}}]},`+
		`"status":{"phase":"Running","podIP":"10.%d.%d.%d","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-01T23:48:00Z"}]}}`,
		i, i, i>>16&255, i>>8&255, i&255)
}

// TestKubernetesHugeItemBoundedMemory: an API server answering the pods
// list with one item of hostileBytes is stopped after kubeMaxItemBytes,
// with an error naming the bound, and the heap stays under
// kubeMemoryBound; the other lists are saved.
func TestKubernetesHugeItemBoundedMemory(t *testing.T) {
	chunk := strings.Repeat("a", 64<<10)
	var sent atomic.Int64
	_, k := hostilePods(t, endless(`{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"x","annotations":{"a":"`,
		func(int) string { return chunk }, `"}}}]}`, hostileBytes(), &sent))
	heap := watchHeap()
	rep, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	grew := heap.grew()
	t.Logf("the server sent %.1f MB of a %.0f MB item; the heap grew by %.1f MB", float64(sent.Load())/(1<<20), float64(hostileBytes())/(1<<20), float64(grew)/(1<<20))
	if grew > kubeMemoryBound {
		t.Errorf("the heap grew by %.1f MB, want at most %d MB", float64(grew)/(1<<20), kubeMemoryBound>>20)
	}
	pods := rep.Items[2]
	if err == nil || !strings.Contains(err.Error(), "sent an object larger than 3.0 MiB") || pods.Status != bundle.ItemFailed || rep.Items[3].Status != bundle.ItemComplete {
		t.Fatalf("error %v\n%+v", err, rep.Items)
	}
}

// TestKubernetesEndlessListBoundedMemory: an API server that ignores
// limit=500 and sends valid pods without end is cut at listItemLimit, with
// a reason naming the bound and the server, and the heap stays under
// kubeMemoryBound. With READYGAP_TRIAGE_MEMORY=1 the bound is the
// product's (a million pods, about 700 MB); otherwise 20 000.
func TestKubernetesEndlessListBoundedMemory(t *testing.T) {
	if os.Getenv("READYGAP_TRIAGE_MEMORY") == "" {
		defer func(n int) { listItemLimit = n }(listItemLimit)
		listItemLimit = 20_000
	}
	var sent atomic.Int64
	_, k := hostilePods(t, endless(`{"apiVersion":"v1","kind":"PodList","metadata":{"continue":"more"},"items":[`,
		func(i int) string { return podItem(i) + "," }, podItem(-1)+`]}`, hostileBytes(), &sent))
	heap := watchHeap()
	start := time.Now()
	dir := t.TempDir()
	rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
	grew := heap.grew()
	pods := rep.Items[2]
	t.Logf("the server sent %.1f MB in %v; %d pods saved (%.1f MB); the heap grew by %.1f MB", float64(sent.Load())/(1<<20), time.Since(start).Round(time.Millisecond),
		pods.Records, float64(pods.Bytes)/(1<<20), float64(grew)/(1<<20))
	if grew > kubeMemoryBound {
		t.Errorf("the heap grew by %.1f MB, want at most %d MB", float64(grew)/(1<<20), kubeMemoryBound>>20)
	}
	want := fmt.Sprintf("list pods in namespace shop: cut at %d items, readygap's bound on one list: the API server %s ignored limit=500", listItemLimit, strings.TrimSuffix(kubeURL(k), "/"))
	if pods.Status != bundle.ItemPartial || pods.Records != listItemLimit || pods.Reason != want || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("pods %+v\nerror %v\nwant %s", pods, err, want)
	}
	if rep.Items[3].Status != bundle.ItemComplete {
		t.Fatalf("the lists after were not read: %+v", rep.Items[3])
	}
}

// kubeURL is the API server of k's kubeconfig.
func kubeURL(k *Kubernetes) string {
	if err := k.Resolve(); err != nil {
		panic(err)
	}
	return k.config.Host
}

// TestKubernetesListBounds pins the bound on one list on both sides, for a
// server that pages honestly and for one that pages without end, and
// stops a server repeating its continue token.
func TestKubernetesListBounds(t *testing.T) {
	defer func(n int) { listItemLimit = n }(listItemLimit)
	listItemLimit = 2 * kubeListLimit
	for _, tt := range []struct {
		name   string
		n      int // pods in the list; -1: pages without end
		token  func(page int) string
		status bundle.ItemStatus
		saved  int
		reason string
	}{
		{name: "a list at the bound", n: 2 * kubeListLimit, status: bundle.ItemComplete, saved: 2 * kubeListLimit},
		{name: "a list past the bound", n: 2*kubeListLimit + 1, status: bundle.ItemPartial, saved: 2 * kubeListLimit,
			reason: "cut at 1000 items, readygap's bound on one list: the API server URL paged on past them"},
		{name: "empty pages without end", n: 0, token: func(p int) string { return "p" + strconv.Itoa(p) }, status: bundle.ItemFailed,
			reason: "cut at 1000 items, readygap's bound on one list: the API server URL paged on past them"},
		{name: "the same continue token again", n: 10, token: func(int) string { return "again" }, status: bundle.ItemPartial, saved: 20,
			reason: "the API server URL sent a continue token it had sent before: the list would not end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages := 0
			_, k := hostilePods(t, func(w http.ResponseWriter, r *http.Request) {
				off, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("continue"), "p"))
				if tt.token != nil {
					off = 0
				}
				end := min(off+kubeListLimit, tt.n)
				next := ""
				switch {
				case tt.token != nil:
					next = tt.token(pages)
				case end < tt.n:
					next = "p" + strconv.Itoa(end)
				}
				pages++
				var items []string
				for i := off; i < end; i++ {
					items = append(items, podItem(i))
				}
				fmt.Fprintf(w, `{"apiVersion":"v1","kind":"PodList","metadata":{"continue":%q},"items":[%s]}`, next, strings.Join(items, ","))
			})
			rep, _ := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
			pods := rep.Items[2]
			want := ""
			if tt.reason != "" {
				want = "list pods in namespace shop: " + strings.ReplaceAll(tt.reason, "URL", kubeURL(k))
			}
			if pods.Status != tt.status || pods.Records != tt.saved || pods.Reason != want {
				t.Fatalf("pods %+v after %d pages\nwant %s, %d saved, %q", pods, pages, tt.status, tt.saved, want)
			}
		})
	}
}

// TestKubeAnswerLimit checks the bound on answers client-go reads whole:
// a Namespace object of hostileBytes is refused at kubeMaxAnswerBytes with
// the heap under kubeMemoryBound; an error answer's body is cut.
func TestKubeAnswerLimit(t *testing.T) {
	srv := kubeTestServer(t)
	chunk := strings.Repeat("a", 64<<10)
	var sent atomic.Int64
	front := newKubeFront(t, srv, "/api/v1/namespaces/shop", endless(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","annotations":{"a":"`,
		func(int) string { return chunk }, `"}}}`, hostileBytes(), &sent))
	k := &Kubernetes{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), front, "t"), Timeouts: Timeouts{Idle: 30 * time.Second}}
	heap := watchHeap()
	rep, _ := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	grew := heap.grew()
	t.Logf("the server sent %.1f MB; the heap grew by %.1f MB", float64(sent.Load())/(1<<20), float64(grew)/(1<<20))
	if grew > kubeMemoryBound {
		t.Errorf("the heap grew by %.1f MB, want at most %d MB", float64(grew)/(1<<20), kubeMemoryBound>>20)
	}
	ns := rep.Items[1]
	if ns.Status != bundle.ItemFailed || !strings.Contains(ns.Reason, "was larger than 16.0 MiB: not read") || rep.Items[2].Status != bundle.ItemComplete {
		t.Fatalf("%+v", rep.Items[:3])
	}
	// Error bodies are cut, not failed: what was read of the Status shows.
	b := &cappedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", kubeMaxErrorBytes+10))), left: kubeMaxErrorBytes}
	got, err := io.ReadAll(b)
	if err != nil || len(got) != kubeMaxErrorBytes {
		t.Fatalf("read %d, %v", len(got), err)
	}
	// An answer of exactly the bound is whole.
	b = &cappedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 100))), left: 100, over: errors.New("over")}
	if got, err := io.ReadAll(b); err != nil || len(got) != 100 {
		t.Fatalf("at the bound: %d, %v", len(got), err)
	}
	b = &cappedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 101))), left: 100, over: errors.New("over")}
	if _, err := io.ReadAll(b); err == nil || err.Error() != "over" {
		t.Fatalf("past the bound: %v", err)
	}
}
