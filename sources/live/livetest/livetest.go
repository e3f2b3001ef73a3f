// Package livetest runs in-process servers on loopback that speak the real
// protocols of the services readygap triage reads: S3 (gofakes3), the Cloud
// Logging ListLogEntries gRPC API, CloudWatch Logs' JSON 1.1 FilterLogEvents
// and the Kubernetes API (lists with label selectors, gets, pods/log). Tests
// point the real SDK clients at them and read back what the clients asked
// for.
package livetest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/logging/apiv2/loggingpb"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/labels"
)

// Log records the requests a fake served, one line each, for assertions.
type Log struct {
	mu   sync.Mutex
	reqs []string
}

// add records one request.
func (l *Log) add(s string) {
	l.mu.Lock()
	l.reqs = append(l.reqs, s)
	l.mu.Unlock()
}

// Requests returns the recorded requests in order.
func (l *Log) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// S3 is a gofakes3 server on plain HTTP.
type S3 struct {
	Log
	URL     string
	backend *s3mem.Backend
	// Faults maps an object key (or a listing's prefix) to the fault its
	// requests get instead of the real answer.
	Faults map[string]*Fault
	// Bandwidth, when set before the first request, bounds the bytes a
	// second the server sends over all its connections, as the link a
	// laptop reaches S3 by does; 0 leaves loopback's speed.
	Bandwidth int64
	limit     *rate.Limiter
	limitOnce sync.Once
}

// throttleChunk is the most one write of a throttled answer sends at once.
const throttleChunk = 64 << 10

// throttled sends what it is given at the server's Bandwidth.
type throttled struct {
	http.ResponseWriter
	s   *S3
	ctx context.Context
}

func (t throttled) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := min(len(p), throttleChunk)
		if err := t.s.limit.WaitN(t.ctx, c); err != nil {
			return n, err
		}
		w, err := t.ResponseWriter.Write(p[:c])
		n += w
		if err != nil {
			return n, err
		}
		p = p[c:]
	}
	return n, nil
}

// NewS3 starts an S3 server holding bucket; it stops when t ends.
func NewS3(t testing.TB, bucket string) *S3 {
	b := s3mem.New()
	if err := b.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	s := &S3{backend: b, Faults: map[string]*Fault{}}
	h := gofakes3.New(b, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + " auth=" + r.Header.Get("Authorization"))
		key := strings.TrimPrefix(r.URL.Path, "/"+bucket+"/")
		if key == r.URL.Path || key == "" {
			key = r.URL.Query().Get("prefix")
		}
		if f := s.Faults[key]; f != nil && f.serve(w, r, h) {
			return
		}
		if s.Bandwidth > 0 {
			s.limitOnce.Do(func() { s.limit = rate.NewLimiter(rate.Limit(s.Bandwidth), throttleChunk) })
			w = throttled{ResponseWriter: w, s: s, ctx: r.Context()}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// S3Error is the body of an S3 error answer.
func S3Error(code, message string) string {
	var esc bytes.Buffer
	xml.EscapeText(&esc, []byte(message))
	return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code + `</Code><Message>` + esc.String() +
		`</Message><RequestId>4442587FB7D0A2F9</RequestId><HostId>` + "dGhpcyBpcyBub3QgYSByZWFsIGhvc3QgaWQ=" + `</HostId></Error>`
}

// Fault is what a fake answers to a request instead of the real answer:
// an error status and body, or the real answer cut off and stalled.
type Fault struct {
	// Status and Body are the error answer; ContentType its type.
	Status      int
	Body        string
	ContentType string
	// Header is added to the answer (Retry-After).
	Header map[string]string
	// After is how many requests are answered normally before the fault
	// starts; Times is how many requests then get it, 0 meaning every one.
	After, Times int
	// Delay, when set, holds the answer (the real one) that long before
	// its first byte.
	Delay time.Duration
	// StallAfter, when Stall is set, is how many bytes of the real answer
	// are sent (after its headers) before the fake sends nothing for
	// StallFor, then the rest; a zero StallFor stalls until the client
	// gives up.
	Stall      bool
	StallAfter int
	StallFor   time.Duration
	// Stalled, when not nil, receives the request's URL path each time a
	// stall begins.
	Stalled chan string

	mu   sync.Mutex
	seen int
}

// serve answers r with the fault and reports true, or reports false when
// the fault has been used up.
func (f *Fault) serve(w http.ResponseWriter, r *http.Request, real http.Handler) bool {
	f.mu.Lock()
	f.seen++
	n := f.seen - f.After
	use := n > 0 && (f.Times == 0 || n <= f.Times)
	f.mu.Unlock()
	if !use {
		return false
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return true
		}
		if !f.Stall && f.Status == 0 {
			real.ServeHTTP(w, r)
			return true
		}
	}
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	if !f.Stall {
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		w.WriteHeader(f.Status)
		fmt.Fprint(w, f.Body)
		return true
	}
	rec := httptest.NewRecorder()
	real.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	body := rec.Body.Bytes()
	cut := min(f.StallAfter, len(body))
	w.Write(body[:cut])
	w.(http.Flusher).Flush()
	if f.Stalled != nil {
		f.Stalled <- r.URL.Path
	}
	if f.StallFor == 0 {
		<-r.Context().Done()
		return true
	}
	select {
	case <-time.After(f.StallFor):
		w.Write(body[cut:])
	case <-r.Context().Done():
	}
	return true
}

// Silent starts a TCP server that accepts connections and never sends a
// byte; it returns its host:port and stops when t ends.
func Silent(t testing.TB) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return lis.Addr().String()
}

// Refused returns a loopback host:port where nothing listens.
func Refused(t testing.TB) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// Put stores an object.
func (s *S3) Put(t testing.TB, bucket, key string, body []byte) {
	if _, err := s.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(body), int64(len(body)), nil); err != nil {
		t.Fatal(err)
	}
}

// Gets returns the keys of the objects fetched with GetObject.
func (s *S3) Gets(bucket string) []string {
	var out []string
	for _, r := range s.Requests() {
		path, _, _ := strings.Cut(strings.TrimPrefix(r, "GET /"+bucket+"/"), "?")
		if strings.HasPrefix(r, "GET /"+bucket+"/") && path != "" {
			out = append(out, path)
		}
	}
	return out
}

// Logging is a Cloud Logging LoggingServiceV2 server with ListLogEntries.
type Logging struct {
	loggingpb.UnimplementedLoggingServiceV2Server
	Log
	// Addr is host:port of the server.
	Addr string
	// Entries are served in pages of PageSize.
	Entries  []*loggingpb.LogEntry
	PageSize int
	// FailCode is the error of the first FailCount calls (a rate limit);
	// a negative FailCount fails every call. FailMessage is the error's
	// text.
	FailCode    codes.Code
	FailCount   int
	FailMessage string
	// FailAfter is how many calls succeed before the failures start.
	FailAfter int
	// Stall makes the failing calls never answer (until the client gives
	// up) instead of answering FailCode.
	Stall bool

	mu    sync.Mutex
	calls int
}

// NewLogging starts a Cloud Logging gRPC server; it stops when t ends.
func NewLogging(t testing.TB) *Logging {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &Logging{Addr: lis.Addr().String(), PageSize: 2}
	srv := grpc.NewServer()
	loggingpb.RegisterLoggingServiceV2Server(srv, l)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return l
}

// ListLogEntries serves Entries page by page; the page token is the offset.
func (l *Logging) ListLogEntries(ctx context.Context, req *loggingpb.ListLogEntriesRequest) (*loggingpb.ListLogEntriesResponse, error) {
	l.add(fmt.Sprintf("resources=%s order=%q pageSize=%d token=%q filter=%s", strings.Join(req.ResourceNames, ","), req.OrderBy, req.PageSize, req.PageToken, req.Filter))
	l.mu.Lock()
	l.calls++
	n := l.calls - l.FailAfter
	fail := n > 0 && (l.FailCount < 0 || n <= l.FailCount)
	l.mu.Unlock()
	if fail && l.Stall {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if fail {
		msg := l.FailMessage
		if msg == "" {
			msg = "Quota exceeded for quota metric 'Read requests'"
		}
		return nil, status.Error(l.FailCode, msg)
	}
	off, _ := strconv.Atoi(req.PageToken)
	end := min(off+l.PageSize, len(l.Entries))
	resp := &loggingpb.ListLogEntriesResponse{Entries: l.Entries[off:end]}
	if end < len(l.Entries) {
		resp.NextPageToken = strconv.Itoa(end)
	}
	return resp, nil
}

// CloudWatchEvent is one log event the CloudWatch fake serves.
type CloudWatchEvent struct {
	Stream    string
	Timestamp int64
	Message   string
}

// CloudWatch is a CloudWatch Logs server speaking JSON 1.1 FilterLogEvents.
type CloudWatch struct {
	Log
	URL string
	// Groups maps a log group name to its events; any other group is a
	// ResourceNotFoundException.
	Groups map[string][]CloudWatchEvent
	// PageSize events per page; an empty page carrying a nextToken comes
	// before the last page.
	PageSize int
	// DenyGroups answers AccessDeniedException for these groups.
	DenyGroups map[string]bool
	// Faults maps "<group> <nextToken>" (the token empty for the first
	// page) to the fault that page's requests get.
	Faults map[string]*Fault
}

// NewCloudWatch starts a CloudWatch Logs server; it stops when t ends.
func NewCloudWatch(t testing.TB) *CloudWatch {
	c := &CloudWatch{Groups: map[string][]CloudWatchEvent{}, PageSize: 2, DenyGroups: map[string]bool{}, Faults: map[string]*Fault{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			LogGroupName string `json:"logGroupName"`
			NextToken    string `json:"nextToken"`
		}
		json.Unmarshal(body, &in)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if f := c.Faults[in.LogGroupName+" "+in.NextToken]; f != nil {
			if f.serve(w, r, http.HandlerFunc(c.serve)) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		c.serve(w, r)
	}))
	t.Cleanup(ts.Close)
	c.URL = ts.URL
	return c
}

// CloudWatchError is the body of a CloudWatch Logs error answer.
func CloudWatchError(typ, message string) string {
	b, _ := json.Marshal(map[string]string{"__type": typ, "message": message})
	return string(b)
}

// serve answers one FilterLogEvents call.
func (c *CloudWatch) serve(w http.ResponseWriter, r *http.Request) {
	var in struct {
		LogGroupName  string `json:"logGroupName"`
		FilterPattern string `json:"filterPattern"`
		StartTime     int64  `json:"startTime"`
		EndTime       int64  `json:"endTime"`
		NextToken     string `json:"nextToken"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	c.add(fmt.Sprintf("%s %s group=%s pattern=%q start=%d end=%d token=%q auth=%s", r.Header.Get("X-Amz-Target"),
		r.Header.Get("Content-Type"), in.LogGroupName, in.FilterPattern, in.StartTime, in.EndTime, in.NextToken, r.Header.Get("Authorization")))
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	if r.Header.Get("X-Amz-Target") != "Logs_20140328.FilterLogEvents" {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"__type":"UnknownOperationException"}`)
		return
	}
	if c.DenyGroups[in.LogGroupName] {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"__type":"AccessDeniedException","message":"User: arn:aws:iam::111122223333:user/x is not authorized to perform: logs:FilterLogEvents"}`)
		return
	}
	all, ok := c.Groups[in.LogGroupName]
	if !ok {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"__type":"com.amazonaws.logs#ResourceNotFoundException","message":"The specified log group does not exist."}`)
		return
	}
	var evs []map[string]any
	for i, e := range all {
		if e.Timestamp >= in.StartTime && e.Timestamp <= in.EndTime {
			evs = append(evs, map[string]any{"eventId": strconv.Itoa(i), "logStreamName": e.Stream, "timestamp": e.Timestamp,
				"ingestionTime": e.Timestamp + 500, "message": e.Message})
		}
	}
	// Pages: tokens "p<offset>"; "e<offset>" is an empty page before offset.
	off, next := 0, ""
	if strings.HasPrefix(in.NextToken, "p") || strings.HasPrefix(in.NextToken, "e") {
		off, _ = strconv.Atoi(in.NextToken[1:])
	}
	page := []map[string]any{}
	switch {
	case strings.HasPrefix(in.NextToken, "e"):
		next = "p" + strconv.Itoa(off)
	default:
		end := min(off+c.PageSize, len(evs))
		page = evs[off:end]
		if end < len(evs) {
			next = "p" + strconv.Itoa(end)
			if end+c.PageSize >= len(evs) {
				next = "e" + strconv.Itoa(end)
			}
		}
	}
	out := map[string]any{"events": page, "searchedLogStreams": []any{}}
	if next != "" {
		out["nextToken"] = next
	}
	json.NewEncoder(w).Encode(out)
}

// Kube is a Kubernetes API server answering list and get calls from a map
// of URL paths to JSON bodies (a list filtered by its labelSelector) and
// pods/log from PodLogs; other paths are 404, paths in Forbidden 403.
type Kube struct {
	Log
	URL string
	// Paths maps a URL path (/api/v1/namespaces/shop/pods) to the JSON body.
	Paths     map[string]string
	Forbidden map[string]bool
	// Message is the text of the Status of a 401 or 403 answer.
	Message string
	// Unauthorized answers every request with 401.
	Unauthorized bool
	// Lists maps a URL path to a list served page by page (limit and
	// continue), its items made on demand.
	Lists map[string]*PagedList
	// Faults maps a URL path to the fault its requests get.
	Faults map[string]*Fault
	// PodLogs maps "namespace/pod" to the logs of its containers, by
	// container name, served at /api/v1/namespaces/NS/pods/POD/log as the
	// kubelet serves them; a pod not in it answers 404.
	PodLogs map[string]map[string]*ContainerLogs
}

// LogLine is one line a container wrote and the time the container
// runtime stamped on it.
type LogLine struct {
	Time time.Time
	Text string
}

// ContainerLogs is what the kubelet keeps of one container: the current
// instance's lines and, after a restart, the last terminated instance's
// (nil when there is none).
type ContainerLogs struct {
	Current, Previous []LogLine
	// Lines, when not nil, makes the current instance's line i on demand
	// instead of Current, until it returns false: a log larger than the
	// test should hold.
	Lines func(i int) (LogLine, bool)
}

// rfc3339NanoFixed is how the kubelet writes a line's time with
// timestamps=true (pkg/kubelet/kuberuntime/logs, timeFormatOut).
const rfc3339NanoFixed = "2006-01-02T15:04:05.000000000Z07:00"

// podLogPath matches the URL path of a pods/log request.
var podLogPath = regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/pods/([^/]+)/log$`)

// serveLog answers a pods/log request as the API server and the kubelet
// do: the container's current or previous instance, its lines from
// sinceTime on, each after its time when timestamps=true, cut after
// limitBytes bytes (mid-line, as the kubelet cuts), and 400 or 404 with a
// Status for what the kubelet refuses.
func (k *Kube) serveLog(w http.ResponseWriter, r *http.Request, ns, pod string) {
	status := func(code int, reason, msg string) {
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
	}
	containers, ok := k.PodLogs[ns+"/"+pod]
	if !ok {
		status(404, "NotFound", fmt.Sprintf("pods %q not found", pod))
		return
	}
	q := r.URL.Query()
	name := q.Get("container")
	if name == "" {
		var names []string
		for n := range containers {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) != 1 {
			status(400, "BadRequest", fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod, names))
			return
		}
		name = names[0]
	}
	c, ok := containers[name]
	if !ok {
		status(400, "BadRequest", fmt.Sprintf("container %q in pod %q is not available", name, pod))
		return
	}
	next := func(i int) (LogLine, bool) {
		if i < len(c.Current) {
			return c.Current[i], true
		}
		return LogLine{}, false
	}
	if c.Lines != nil {
		next = c.Lines
	}
	if q.Get("previous") == "true" {
		if c.Previous == nil {
			status(400, "BadRequest", fmt.Sprintf("previous terminated container %q in pod %q not found", name, pod))
			return
		}
		next = func(i int) (LogLine, bool) {
			if i < len(c.Previous) {
				return c.Previous[i], true
			}
			return LogLine{}, false
		}
	}
	if q.Get("follow") == "true" || q.Has("tailLines") || q.Has("sinceSeconds") {
		status(400, "BadRequest", "the fake serves neither follow, tailLines nor sinceSeconds")
		return
	}
	var since time.Time
	if s := q.Get("sinceTime"); s != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, s); err != nil {
			status(400, "BadRequest", "bad sinceTime: "+err.Error())
			return
		}
	}
	remain := int64(-1)
	if s := q.Get("limitBytes"); s != "" {
		remain, _ = strconv.ParseInt(s, 10, 64)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(200)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	for i := 0; ; i++ {
		l, ok := next(i)
		if !ok {
			return
		}
		if l.Time.Before(since) {
			continue
		}
		line := l.Text + "\n"
		if q.Get("timestamps") == "true" {
			line = l.Time.UTC().Format(rfc3339NanoFixed) + " " + line
		}
		if remain >= 0 && int64(len(line)) > remain {
			line = line[:remain]
		}
		if _, err := bw.WriteString(line); err != nil {
			return // the client went away
		}
		if remain >= 0 {
			if remain -= int64(len(line)); remain <= 0 {
				return
			}
		}
	}
}

// ReadLogLines reads a file as `kubectl logs --timestamps` writes it (each
// line an RFC 3339 time, a space and the line) into the lines a fake
// kubelet serves.
func ReadLogLines(t testing.TB, path string) []LogLine {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []LogLine
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		stamp, text, _ := strings.Cut(l, " ")
		ts, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			t.Fatalf("%s: a line without a time: %q", path, l)
		}
		out = append(out, LogLine{Time: ts, Text: text})
	}
	return out
}

// filterList keeps the items of a List body that selector (a label
// selector, as sent in labelSelector) matches.
func filterList(body, selector string) (string, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return "", err
	}
	var list map[string]any
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		return "", err
	}
	items, _ := list["items"].([]any)
	kept := []any{}
	for _, it := range items {
		md, _ := it.(map[string]any)["metadata"].(map[string]any)
		set := labels.Set{}
		if ls, ok := md["labels"].(map[string]any); ok {
			for k, v := range ls {
				set[k], _ = v.(string)
			}
		}
		if sel.Matches(set) {
			kept = append(kept, it)
		}
	}
	list["items"] = kept
	b, err := json.Marshal(list)
	return string(b), err
}

// PagedList is a list of N items that the Kube fake serves page by page,
// honouring limit and continue, making item i with Item(i) when asked.
type PagedList struct {
	APIVersion, Kind string
	N                int
	Item             func(i int) string
	// PageDelay is a pause before each page's body is sent.
	PageDelay time.Duration
	// Pages counts the pages served.
	Pages int
}

// serve answers one page of the list.
func (p *PagedList) serve(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	off, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	if limit <= 0 {
		limit = p.N
	}
	end := min(off+limit, p.N)
	next := ""
	if end < p.N {
		next = strconv.Itoa(end)
	}
	w.WriteHeader(200)
	if p.PageDelay > 0 {
		w.(http.Flusher).Flush()
		time.Sleep(p.PageDelay)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"1","continue":%q},"items":[`, p.APIVersion, p.Kind, next)
	for i := off; i < end; i++ {
		if i > off {
			bw.WriteByte(',')
		}
		bw.WriteString(p.Item(i))
	}
	bw.WriteString("]}")
	bw.Flush()
	p.Pages++
}

// KubeVersionJSON is what NewKube's server answers at /version, as an
// EKS API server does.
const KubeVersionJSON = `{"major":"1","minor":"29+","gitVersion":"v1.29.3-eks-ae9a62a","platform":"linux/amd64"}`

// NewKube starts a Kubernetes API server; it stops when t ends.
func NewKube(t testing.TB) *Kube {
	k := &Kube{Paths: map[string]string{"/version": KubeVersionJSON}, Forbidden: map[string]bool{}, Lists: map[string]*PagedList{}, Faults: map[string]*Fault{}, Message: "forbidden",
		PodLogs: map[string]map[string]*ContainerLogs{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if k.Unauthorized {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":"Unauthorized","code":401}`, k.Message)
			return
		}
		if k.Forbidden[r.URL.Path] {
			w.WriteHeader(403)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":"Forbidden","code":403}`, k.Message)
			return
		}
		if l := k.Lists[r.URL.Path]; l != nil {
			l.serve(w, r)
			return
		}
		if m := podLogPath.FindStringSubmatch(r.URL.Path); m != nil {
			k.serveLog(w, r, m[1], m[2])
			return
		}
		body, ok := k.Paths[r.URL.Path]
		if !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`)
			return
		}
		if sel := r.URL.Query().Get("labelSelector"); sel != "" {
			var err error
			if body, err = filterList(body, sel); err != nil {
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":"BadRequest","code":400}`, err.Error())
				return
			}
		}
		fmt.Fprint(w, body)
	})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.add(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + " auth=" + r.Header.Get("Authorization"))
		if f := k.Faults[r.URL.Path]; f != nil && f.serve(w, r, h) {
			return
		}
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	k.URL = ts.URL
	return k
}

// List sets the list body served at path: a kind List of items (JSON
// objects without apiVersion/kind, as the API server sends them).
func (k *Kube) List(path, apiVersion, kind string, items ...string) {
	k.Paths[path] = fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"1"},"items":[%s]}`, apiVersion, kind, strings.Join(items, ","))
}

// Kubeconfig writes a kubeconfig for the server with a bearer token into
// dir and returns its path.
func (k *Kube) Kubeconfig(t testing.TB, dir, token string) string {
	return KubeconfigFor(t, dir, k.URL, token)
}

// KubeconfigFor writes a kubeconfig for the API server at url with a
// bearer token into dir and returns its path.
func KubeconfigFor(t testing.TB, dir, url, token string) string {
	p := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: %q}
users:
- name: fake
  user: {token: %q}
contexts:
- name: fake
  context: {cluster: fake, user: fake, namespace: shop}
current-context: fake
`, url, token)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// ALBKey returns the S3 key of an ALB access log object as ELB names it,
// in the date folder of delivered; prefix is what precedes AWSLogs/.
func ALBKey(prefix, kind, acct, region string, delivered, end time.Time, node string) string {
	name := fmt.Sprintf("%s%s_elasticloadbalancing_%s_app.k8s-shop-web-0123456789.1a2b3c4d5e6f7a8b_%s_%s_%s.log.gz",
		kind, acct, region, end.UTC().Format("20060102T1504Z"), node, "2k8f9x1a")
	if prefix != "" {
		prefix += "/"
	}
	return fmt.Sprintf("%sAWSLogs/%s/elasticloadbalancing/%s/%s/%s", prefix, acct, region, delivered.UTC().Format("2006/01/02"), name)
}

// ALBLine returns one ALB access log line at t: status 200 from target, or
// an LB-generated 503 when target is "".
func ALBLine(t time.Time, target string) string {
	ts := t.UTC().Format("2006-01-02T15:04:05.000000Z")
	if target == "" {
		return fmt.Sprintf(`https %s app/k8s-shop-web-0123456789/1a2b3c4d5e6f7a8b 203.0.113.10:51234 - -1 -1 -1 503 - 512 162 "GET https://shop.example.com:443/api/items HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9b1-0123456789abcdef01234567" "shop.example.com" "arn:aws:acm:us-east-1:111122223333:certificate/11111111-2222-3333-4444-555555555555" 0 %s "forward" "-" "-" "-" "-" "-" "-" TID_0123456789abcdef0123456789abcdef`, ts, ts)
	}
	return fmt.Sprintf(`https %s app/k8s-shop-web-0123456789/1a2b3c4d5e6f7a8b 203.0.113.10:51234 %s 0.000 0.012 0.000 200 200 512 1024 "GET https://shop.example.com:443/api/items HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9b1-0123456789abcdef01234567" "shop.example.com" "arn:aws:acm:us-east-1:111122223333:certificate/11111111-2222-3333-4444-555555555555" 1 %s "forward" "-" "-" "%s" "200" "-" "-" TID_0123456789abcdef0123456789abcdef`, ts, target, ts, target)
}

// Gzip compresses lines, one per line.
func Gzip(lines ...string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for _, l := range lines {
		zw.Write([]byte(l + "\n"))
	}
	zw.Close()
	return b.Bytes()
}
