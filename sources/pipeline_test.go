package sources

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingHandler counts records by kind; it is shared by every input of a
// test run, so it locks.
type countingHandler struct {
	mu                          sync.Mutex
	requests, lifecycle, config int
}

func (c *countingHandler) Request(*Request)     { c.mu.Lock(); c.requests++; c.mu.Unlock() }
func (c *countingHandler) Lifecycle(*Lifecycle) { c.mu.Lock(); c.lifecycle++; c.mu.Unlock() }
func (c *countingHandler) Config(*Config)       { c.mu.Lock(); c.config++; c.mu.Unlock() }

func readPaths(t *testing.T, opts Options, paths ...string) (*Result, *countingHandler) {
	t.Helper()
	h := &countingHandler{}
	res, err := Read(context.Background(), paths, opts, func(*InputReport) Handler { return h })
	if err != nil {
		t.Fatalf("Read(%v): %v", paths, err)
	}
	return res, h
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// TestDetectFromContentNotName copies each bundled example under a
// meaningless name and checks that its format is still recognised.
func TestDetectFromContentNotName(t *testing.T) {
	want := map[string]Format{
		"gcp/gcloud-logging-read.json":     FormatGCPLogging,
		"aws-load-balancer-controller.log": FormatAWSLBC,
		"aws-lbc-cloudwatch-export.json":   FormatAWSLBC,
		"ingress-nginx-controller.log":     FormatIngressNginx,
		"events.json":                      FormatK8sEvents,
		"objects.yaml":                     FormatK8sObjects,
	}
	dir := t.TempDir()
	for src, f := range want {
		data, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", src))
		if err != nil {
			t.Fatal(err)
		}
		p := writeFile(t, dir, "input-"+string(f)+filepath.Ext(src)+".dat", data)
		res, _ := readPaths(t, Options{}, p)
		if got := res.Inputs[0].Format; got != f {
			t.Errorf("%s: detected %q, want %q", src, got, f)
		}
		if res.Inputs[0].Records == 0 || res.Inputs[0].Skipped != 0 {
			t.Errorf("%s: %+v", src, res.Inputs[0])
		}
	}
}

func TestReadLongLinesAndBlankLines(t *testing.T) {
	line := `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`
	long := strings.Replace(line, "curl/7.46.0", strings.Repeat("A", 2<<20), 1)
	in := line + "\n\n" + long + "\n" + line + "\r\n"
	p := writeFile(t, t.TempDir(), "x.log", []byte(in))
	res, h := readPaths(t, Options{}, p)
	rep := res.Inputs[0]
	if rep.Records != 2 || rep.Skipped != 1 || h.requests != 2 {
		t.Fatalf("report %+v, %d requests; want 2 records and the 2 MiB line skipped", rep, h.requests)
	}
	if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, "x.log:3: line longer than 1 MiB") {
		t.Fatalf("warnings %q do not name line 3", got)
	}
}

func TestReadTimeWindowAndALBPruning(t *testing.T) {
	dir := t.TempDir()
	mk := func(ts string) string {
		return `http ` + ts + ` app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 ` + ts + ` "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"` + "\n"
	}
	name := func(end string) string {
		return "123456789012_elasticloadbalancing_us-east-2_app.my-loadbalancer.50dc6c495c0c9188_" + end + "_172.160.001.192_20sg8hgm.log.gz"
	}
	writeFile(t, dir, name("20180702T2220Z"), gzipBytes(t, []byte(mk("2018-07-02T22:16:00.000001Z"))))
	writeFile(t, dir, name("20180702T2225Z"), gzipBytes(t, []byte(mk("2018-07-02T22:21:00.000001Z")+mk("2018-07-02T22:24:59.999999Z"))))
	writeFile(t, dir, name("20180702T2300Z"), gzipBytes(t, []byte(mk("2018-07-02T22:58:00.000001Z"))))
	opts := Options{Since: time.Date(2018, 7, 2, 22, 23, 0, 0, time.UTC), Until: time.Date(2018, 7, 2, 22, 30, 0, 0, time.UTC)}
	res, h := readPaths(t, opts, dir)
	if res.Pruned != 2 || len(res.Inputs) != 1 {
		t.Fatalf("pruned %d, read %d inputs; want the 22:20 and 23:00 objects pruned", res.Pruned, len(res.Inputs))
	}
	if rep := res.Inputs[0]; rep.Records != 1 || rep.Filtered != 1 || h.requests != 1 {
		t.Fatalf("report %+v: want 1 record kept and 1 filtered", rep)
	}
	// What the window left out is still dated, in the same read: the
	// filtered record by its time, the pruned objects by their names.
	if rep := res.Inputs[0]; !rep.FilteredFirst.Equal(time.Date(2018, 7, 2, 22, 21, 0, 1000, time.UTC)) || !rep.FilteredLast.Equal(rep.FilteredFirst) {
		t.Errorf("filtered range %v – %v, want the 22:21 record's time", rep.FilteredFirst, rep.FilteredLast)
	}
	if want := time.Date(2018, 7, 2, 22, 15, 0, 0, time.UTC); !res.PrunedFirst.Equal(want) || !res.PrunedLast.Equal(time.Date(2018, 7, 2, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("pruned range %v – %v, want 22:15 (the 22:20 object's interval) to 23:00", res.PrunedFirst, res.PrunedLast)
	}
}

func TestReadDeduplicatesAcrossInputs(t *testing.T) {
	src := filepath.Join("..", "fixtures", "formats", "gcp", "gcloud-logging-read.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", data)
	b := writeFile(t, dir, "b.json", data)
	res, h := readPaths(t, Options{Workers: 1}, a, b)
	if res.Inputs[0].Records != 4 || res.Inputs[1].Records != 0 || res.Inputs[1].Duplicates != 4 || h.requests+h.lifecycle != 4 {
		t.Fatalf("inputs %+v %+v: the second copy must be all duplicates", *res.Inputs[0], *res.Inputs[1])
	}
}

func TestReadMixedKubernetesList(t *testing.T) {
	// Objects first, then an event: each element must reach its own adapter.
	list := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"ports":[{"port":80,"targetPort":8080}]}},
{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1","namespace":"shop"},"involvedObject":{"kind":"Pod","name":"web-1","namespace":"shop"},"reason":"Killing","message":"Stopping container web","lastTimestamp":"2026-03-10T12:00:01Z","source":{"component":"kubelet"}},
{"apiVersion":"v1","kind":"Service","metadata":{"name":"api","namespace":"shop"},"spec":{"ports":[{"port":80,"targetPort":8080}]}}
]}`
	p := writeFile(t, t.TempDir(), "mixed.json", []byte(list))
	res, h := readPaths(t, Options{}, p)
	if h.lifecycle != 1 || h.config != 2 || res.Inputs[0].Format != FormatK8sObjects || res.Inputs[0].Skipped != 0 {
		t.Fatalf("lifecycle %d, config %d, format %s: want 1, 2 and k8s-objects (the majority)", h.lifecycle, h.config, res.Inputs[0].Format)
	}
}

func TestReadYAMLDocuments(t *testing.T) {
	docs := "# exported\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ports:\n  - port: 80\n    targetPort: http\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled\n---\n: : not yaml [\n"
	p := writeFile(t, t.TempDir(), "objs.yaml", []byte(docs))
	res, h := readPaths(t, Options{}, p)
	if h.config != 2 || res.Inputs[0].Skipped != 1 {
		t.Fatalf("config %d, report %+v: want 2 objects and the broken document skipped", h.config, *res.Inputs[0])
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "objs.yaml:20: YAML") {
		t.Fatalf("warnings %q do not point at the broken document's line", w)
	}
}

func TestReadStdinAndErrors(t *testing.T) {
	nginx := `10.0.0.1 - - [02/Jan/2024:03:04:05 +0000] "GET /x HTTP/1.1" 200 5 "-" "curl" 80 0.001 [shop-web-80] [] 10.244.0.5:8080 5 0.001 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60` + "\n"
	h := &countingHandler{}
	res, err := Read(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader(nginx)}, func(*InputReport) Handler { return h })
	if err != nil || res.Inputs[0].Name != stdinName || h.requests != 1 {
		t.Fatalf("stdin: %v %+v", err, res)
	}
	if _, err := Read(context.Background(), []string{"/does/not/exist"}, Options{}, func(*InputReport) Handler { return h }); err == nil {
		t.Fatal("a missing path must be an error")
	}
	empty := writeFile(t, t.TempDir(), "empty.log", nil)
	if _, err := Read(context.Background(), []string{empty}, Options{}, func(*InputReport) Handler { return h }); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("an empty only input: err = %v", err)
	}
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, []string{filepath.Join("..", "fixtures", "formats")}, Options{}, func(*InputReport) Handler { return &countingHandler{} })
	if err == nil {
		t.Fatal("a cancelled read must report the cancellation")
	}
}

// originHandler records the origin of every configuration fact.
type originHandler struct {
	mu      sync.Mutex
	origins []string
}

func (h *originHandler) Request(*Request)     {}
func (h *originHandler) Lifecycle(*Lifecycle) {}
func (h *originHandler) Config(c *Config) {
	h.mu.Lock()
	h.origins = append(h.origins, c.Kind+"@"+strconv.Itoa(c.Origin.Line))
	h.mu.Unlock()
}

func TestReadYAMLListItemsKeepTheirLines(t *testing.T) {
	list := "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n  spec:\n    ports:\n    - port: 80\n# a comment\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\nkind: List\nmetadata:\n  resourceVersion: \"\"\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n"
	p := writeFile(t, t.TempDir(), "list.yaml", []byte(list))
	h := &originHandler{}
	if _, err := Read(context.Background(), []string{p}, Options{}, func(*InputReport) Handler { return h }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(h.origins)
	if got := strings.Join(h.origins, " "); got != "Namespace@11 Namespace@19 Service@3" {
		t.Fatalf("origins %s, want each item at its own line", got)
	}
}

// busyHandler counts the records it gets and fails the test when two
// goroutines call it at once.
type busyHandler struct {
	t        *testing.T
	busy     sync.Mutex
	requests int
}

func (h *busyHandler) Request(*Request) {
	if !h.busy.TryLock() {
		h.t.Error("a Handler called from two goroutines at once")
		return
	}
	h.requests++
	h.busy.Unlock()
}
func (h *busyHandler) Lifecycle(*Lifecycle) {}
func (h *busyHandler) Config(*Config)       {}

// TestHandlersAreReusedAcrossInputs checks that the number of Handlers
// follows the workers, not the inputs, and that no record is lost on the way.
func TestHandlersAreReusedAcrossInputs(t *testing.T) {
	dir := t.TempDir()
	const files, lines = 200, 3
	for i := range files {
		var b strings.Builder
		for j := range lines {
			b.WriteString(strings.Replace(albDocModern200, "12:00:01", "12:00:0"+strconv.Itoa(j), 1) + "\n")
		}
		writeFile(t, dir, "alb-"+strconv.Itoa(i)+".log", []byte(b.String()))
	}
	var mu sync.Mutex
	var made []*busyHandler
	opts := Options{Workers: 2}
	_, err := Read(context.Background(), []string{dir}, opts, func(*InputReport) Handler {
		h := &busyHandler{t: t}
		mu.Lock()
		made = append(made, h)
		mu.Unlock()
		return h
	})
	if err != nil {
		t.Fatal(err)
	}
	if limit := opts.Workers * runtime.GOMAXPROCS(0); len(made) > limit {
		t.Errorf("%d Handlers for %d inputs, want at most %d", len(made), files, limit)
	}
	total := 0
	for _, h := range made {
		total += h.requests
	}
	if total != files*lines {
		t.Errorf("%d requests, want %d", total, files*lines)
	}
}

// TestReadYAMLDocumentsStartAtTheirObject checks that a document is
// reported at its first line that is neither blank nor a comment, as Helm
// writes "# Source:" above each, not at the separator's next line.
func TestReadYAMLDocumentsStartAtTheirObject(t *testing.T) {
	docs := "---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n\n# Source: web/templates/ns.yaml\n\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
	p := writeFile(t, t.TempDir(), "rendered.yaml", []byte(docs))
	h := &originHandler{}
	if _, err := Read(context.Background(), []string{p}, Options{}, func(*InputReport) Handler { return h }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(h.origins)
	if got := strings.Join(h.origins, " "); got != "Namespace@11 Service@3" {
		t.Fatalf("origins %s, want the apiVersion lines", got)
	}
}

// TestPipelineLineDoesNotAllocate checks the whole path of a successful
// request line after the read, for ALB and ingress-nginx: unwrapping, the
// Line handed to the adapter, parsing and the Emitter cost no allocation.
func TestPipelineLineDoesNotAllocate(t *testing.T) {
	for _, c := range []struct {
		a     lineAdapter
		lines [][]byte
	}{
		{albAccess{}, albBenchLines(50)},
		{ingressNginx{}, nginxBenchLines(50)},
	} {
		p := &part{em: newEmitter(albDiscard{}, &Options{}, &InputReport{}, nil)}
		for _, line := range c.lines {
			if n := testing.AllocsPerRun(50, func() { p.parseLine(c.a, line, Origin{"a", 1}, time.Time{}) }); n != 0 {
				t.Errorf("%.60q: %v allocs per line, want 0", line, n)
			}
		}
		if p.rep.Skipped != 0 {
			t.Errorf("%s: %d lines skipped", c.a.Format(), p.rep.Skipped)
		}
	}
}

// lineOriginHandler keeps the origin of every request, for every input of a
// run; it locks.
type lineOriginHandler struct {
	mu      sync.Mutex
	origins map[Origin]int
	flushes int
}

func (h *lineOriginHandler) Request(r *Request)   { h.mu.Lock(); h.origins[r.Origin]++; h.mu.Unlock() }
func (h *lineOriginHandler) Lifecycle(*Lifecycle) {}
func (h *lineOriginHandler) Config(*Config)       {}
func (h *lineOriginHandler) Flush()               { h.mu.Lock(); h.flushes++; h.mu.Unlock() }

// TestSerialAndParallelInputsAgree reads inputs both ways: while more
// inputs wait than there are workers, each is parsed by the goroutine
// that reads it; the last ones, and an input read alone, by several. Each
// line must give the same record at the same line, skipped lines the same
// reasons, and every input must be flushed once per Handler it used.
func TestSerialAndParallelInputsAgree(t *testing.T) {
	dir := t.TempDir()
	const files = 8
	lines := albBenchLines(3000) // each input is more than one block
	// A line longer than the blocks a serial input is read in, which
	// gives a record, and one longer than any block, which is skipped.
	long := bytes.Replace(lines[0], []byte("Mozilla/5.0"), bytes.Repeat([]byte("M"), 3*serialBlockBytes), 1)
	tooLong := strings.Repeat("x", readBufferSize+readBufferSize/2) + "\n"
	var paths []string
	for i := range files {
		var b bytes.Buffer
		for j, l := range lines {
			switch {
			case j%1000 == 999:
				b.WriteString("garbage line\n")
			case j == 1500:
				b.Write(long)
				b.WriteByte('\n')
			case j == 2500:
				b.WriteString(tooLong)
			}
			b.Write(l)
			b.WriteByte('\n')
		}
		data := b.Bytes()
		if i%2 == 1 {
			data = gzipBytes(t, data)
		}
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("alb-%d.log", i), data))
	}
	read := func(paths ...string) (*Result, *lineOriginHandler) {
		h := &lineOriginHandler{origins: map[Origin]int{}}
		res, err := Read(context.Background(), paths, Options{Workers: 2, MaxWarnings: 10}, func(*InputReport) Handler { return h })
		if err != nil {
			t.Fatal(err)
		}
		return res, h
	}
	all, together := read(dir)
	for i, p := range paths {
		alone, h := read(p)
		if len(alone.Inputs) != 1 || alone.Inputs[0].Records != all.Inputs[i].Records || alone.Inputs[0].Skipped != all.Inputs[i].Skipped {
			t.Fatalf("%s: alone %+v, among others %+v", p, alone.Inputs[0], all.Inputs[i])
		}
		if a, b := strings.Join(alone.Inputs[0].SkipSamples(), "\n"), strings.Join(all.Inputs[i].SkipSamples(), "\n"); a != b || !strings.Contains(a, ":1000: ") || !strings.Contains(a, ":2504: line longer than 1 MiB") {
			t.Errorf("%s: skipped alone:\n%s\namong others:\n%s", p, a, b)
		}
		for o, n := range h.origins {
			if together.origins[o] != n || n != 1 {
				t.Fatalf("%v: %d records alone, %d among others", o, n, together.origins[o])
			}
		}
	}
	if len(together.origins) != files*(len(lines)+1) {
		t.Errorf("%d records, want %d", len(together.origins), files*(len(lines)+1))
	}
	if together.flushes < files {
		t.Errorf("%d flushes for %d inputs", together.flushes, files)
	}
}

// TestReadLetsGoOfItsBlocks checks that Read keeps no 1 MiB block for later
// once it returns: the analysis that follows may use that memory.
func TestReadLetsGoOfItsBlocks(t *testing.T) {
	var b strings.Builder
	for _, l := range albBenchLines(5000) {
		b.Write(l)
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	for i := range 4 {
		writeFile(t, dir, fmt.Sprintf("alb-%d.log", i), []byte(b.String()))
	}
	readPaths(t, Options{Workers: 2}, dir)
	if n := len(batches.free); n != 0 {
		t.Errorf("%d blocks kept after Read", n)
	}
}

// TestDedupSetKeysBothStrings checks that an entry is a duplicate only of
// one with the same log name and insertId, whichever way round they come.
func TestDedupSetKeysBothStrings(t *testing.T) {
	d := newDedupSet()
	for _, c := range []struct {
		log, id string
		want    bool
	}{
		{"projects/p/logs/requests", "abc", false},
		{"projects/p/logs/requests", "abc", true},
		{"projects/p/logs/other", "abc", false},
		{"projects/p/logs/requests", "abd", false},
		{"abc", "projects/p/logs/requests", false},
		{"projects/p/logs/other", "abc", true},
	} {
		if got := d.seen(c.log, c.id); got != c.want {
			t.Errorf("seen(%q, %q) = %v, want %v", c.log, c.id, got, c.want)
		}
	}
}

// TestReadGzipLikePlain reads the same ALB lines plain, gzip'd, gzip'd in
// two members and with the end of the gzip stream cut off. Past
// detection's look ahead a gzip'd input is read straight from its
// decompressor (inputReader.read): every line must still give its record at
// its line, with the look ahead, a line longer than a block and the lines
// after it read once and in order, and a cut stream must report what came
// before the cut and warn.
func TestReadGzipLikePlain(t *testing.T) {
	var b bytes.Buffer
	for j, l := range albBenchLines(12000) { // several blocks, beyond headSize
		switch j {
		case 500, 7000:
			b.WriteString("garbage line\n\n")
		case 4000:
			b.WriteString(strings.Repeat("x", readBufferSize+readBufferSize/2) + "\n")
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	plain := b.Bytes()
	if len(plain) < 4*batchBytes {
		t.Fatalf("input of %d bytes is too small to span several blocks", len(plain))
	}
	half := bytes.IndexByte(plain[len(plain)/2:], '\n') + len(plain)/2 + 1
	gz := gzipBytes(t, plain)
	dir := t.TempDir()
	read := func(name string, data []byte) (*InputReport, []string, map[Origin]int) {
		t.Helper()
		h := &lineOriginHandler{origins: map[Origin]int{}}
		p := writeFile(t, dir, name, data)
		res, err := Read(context.Background(), []string{p}, Options{Workers: 2, MaxWarnings: 10}, func(*InputReport) Handler { return h })
		if err != nil {
			t.Fatal(err)
		}
		got := map[Origin]int{}
		for o, n := range h.origins {
			got[Origin{Line: o.Line}] = n
		}
		return res.Inputs[0], res.Warnings, got
	}
	want, _, wantOrigins := read("plain.log", plain)
	if want.Records != 12000 || want.Skipped != 3 {
		t.Fatalf("plain: %d records, %d skipped; want 12000 and 3", want.Records, want.Skipped)
	}
	same := func(name string, rep *InputReport, origins map[Origin]int) {
		t.Helper()
		if rep.Records != want.Records || rep.Skipped != want.Skipped || len(origins) != len(wantOrigins) {
			t.Fatalf("%s: %d records, %d skipped at %d lines; plain: %d, %d at %d", name,
				rep.Records, rep.Skipped, len(origins), want.Records, want.Skipped, len(wantOrigins))
		}
		for o, n := range wantOrigins {
			if origins[o] != n {
				t.Fatalf("%s: line %d gave %d records, plain %d", name, o.Line, origins[o], n)
			}
		}
		if a, b := strings.Join(rep.SkipSamples(), "\n"), strings.Join(want.SkipSamples(), "\n"); strings.ReplaceAll(a, name, "plain.log") != b {
			t.Errorf("%s: skipped\n%s\nplain:\n%s", name, a, b)
		}
	}
	rep, _, origins := read("one.log.gz", gz)
	same("one.log.gz", rep, origins)
	rep, _, origins = read("two.log.gz", append(gzipBytes(t, plain[:half]), gzipBytes(t, plain[half:])...))
	same("two.log.gz", rep, origins)

	rep, warnings, origins := read("cut.log.gz", gz[:len(gz)*3/4])
	if rep.Records == 0 || rep.Records >= want.Records || !strings.Contains(strings.Join(warnings, "\n"), "truncated or corrupt gzip") {
		t.Fatalf("cut stream: %d records of %d, warnings %q", rep.Records, want.Records, warnings)
	}
	for o := range origins {
		if wantOrigins[o] != 1 {
			t.Fatalf("cut stream: a record at line %d, which plain has none at", o.Line)
		}
	}
}
