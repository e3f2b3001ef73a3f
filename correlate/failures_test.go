package correlate

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// groupBase is a failure at a terminating backend, as the ALB adapter hands
// it over; the grouping tests vary one field of it at a time.
func groupBase() sources.Request {
	return sources.Request{
		Time: time.Date(2026, 3, 10, 12, 18, 0, 100e6, time.UTC), LB: "app/web/1a2b", Status: 502,
		Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
		Backend: netip.MustParseAddrPort("10.0.14.181:8080"), Method: "GET", Path: "/api/items",
		Detail: "-", Format: sources.FormatALBAccess, Origin: sources.Origin{File: "a.log", Line: 1},
	}
}

// collect feeds records to one Collector and merges it.
func collect(rs ...sources.Request) *Dataset {
	c := NewCollector()
	for i := range rs {
		c.Request(&rs[i])
	}
	return Merge(c)
}

// TestFailuresOfOneKeyGroup checks that failures of one second, equal in
// all the analysis reads, make one group however their paths, methods,
// sub-second times and origins differ; that the group shows its earliest
// record and knows its latest; and that it counts every record.
func TestFailuresOfOneKeyGroup(t *testing.T) {
	var rs []sources.Request
	for i, ms := range []int{500, 100, 900, 300} {
		r := groupBase()
		r.Time = r.Time.Truncate(time.Second).Add(time.Duration(ms) * time.Millisecond)
		r.Path = fmt.Sprintf("/api/users/%d", i)
		r.Origin.Line = 10 - i
		rs = append(rs, r)
	}
	rs[3].Method = "POST"
	d := collect(rs...)
	if len(d.Failures) != 1 {
		t.Fatalf("%d groups, want 1", len(d.Failures))
	}
	f := d.Failures[0]
	if l := f.LatestRecord(); f.N != 4 || f.Path != "/api/users/1" || l.Path != "/api/users/2" || l.Time.Nanosecond() != 900e6 || l.Origin.Line != 8 || l.Status != 502 {
		t.Errorf("group of %d records shows %s, latest %+v", f.N, f.Path, l)
	}
	if c := d.Sum(rs[0].Time.Unix(), rs[0].Time.Unix()); c.Failed() != 4 {
		t.Errorf("the second counts %d failures, want 4", c.Failed())
	}
}

// TestFailuresOfOtherKeysStayApart checks that a record differing from
// another in one thing the analysis reads starts a group of its own.
func TestFailuresOfOtherKeysStayApart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *sources.Request)
	}{
		{"second", func(r *sources.Request) { r.Time = r.Time.Add(time.Second) }},
		{"backend address", func(r *sources.Request) { r.Backend = netip.MustParseAddrPort("10.0.14.182:8080") }},
		{"backend port", func(r *sources.Request) { r.Backend = netip.MustParseAddrPort("10.0.14.181:9090") }},
		{"status", func(r *sources.Request) { r.Status = 503 }},
		{"kind", func(r *sources.Request) { r.Failure = sources.FailureClosed }},
		{"role: error-log line", func(r *sources.Request) { r.AttemptOnly = true }},
		{"role: hidden by a retry", func(r *sources.Request) {
			r.Status, r.Generator, r.Failure = 200, sources.GeneratedByBackend, sources.FailureNone
			r.Attempts = []sources.Attempt{{Backend: r.Backend, Status: 502, Failure: sources.FailureRefused}, {Backend: netip.MustParseAddrPort("10.0.14.9:8080"), Status: 200}}
		}},
		{"attempt", func(r *sources.Request) {
			r.Attempts = []sources.Attempt{{Backend: netip.MustParseAddrPort("10.0.14.9:8080"), Status: 502, Failure: sources.FailureRefused}, {Backend: r.Backend, Status: 502, Failure: sources.FailureRefused}}
		}},
		{"load balancer", func(r *sources.Request) { r.LB = "app/api/3c4d" }},
		{"detail", func(r *sources.Request) { r.Detail = "Target.ResponseCodeMismatch" }},
		{"format", func(r *sources.Request) { r.Format = sources.FormatIngressNginx }},
		{"retry limit", func(r *sources.Request) { r.RetryLimit = true }},
		{"attempt count", func(r *sources.Request) { r.AttemptCount = 2 }},
	} {
		a, b := groupBase(), groupBase()
		b.Origin.Line = 2
		tc.change(&b)
		d := collect(a, b)
		if len(d.Failures) != 2 {
			t.Errorf("%s: %d groups, want 2", tc.name, len(d.Failures))
		}
	}
}

// TestDurationGroupsRetriedOnly checks that the duration, which places
// the last attempt of a retried request only, splits those groups and no
// other.
func TestDurationGroupsRetriedOnly(t *testing.T) {
	a, b := groupBase(), groupBase()
	a.Duration, b.Duration = time.Second, 2*time.Second
	if d := collect(a, b); len(d.Failures) != 1 {
		t.Errorf("not retried: %d groups, want 1", len(d.Failures))
	}
	a.AttemptCount, b.AttemptCount = 3, 3
	if d := collect(a, b); len(d.Failures) != 2 {
		t.Errorf("retried: %d groups, want 2", len(d.Failures))
	}
}

// groupRecords makes n failures over 40 s at four backends, with a path
// of their own each, spread over files a to d.
func groupRecords(n int) []sources.Request {
	out := make([]sources.Request, n)
	for i := range out {
		r := groupBase()
		r.Time = r.Time.Truncate(time.Second).Add(time.Duration(i) * 40 * time.Second / time.Duration(n))
		r.Backend = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 14, byte(i % 4)}), 8080)
		r.Path = fmt.Sprintf("/api/orders/%d", i)
		r.Origin = sources.Origin{File: string(rune('a' + i%4)), Line: i}
		out[i] = r
	}
	return out
}

// describeGroups renders groups with all a report may show of them.
func describeGroups(fs []*Failure) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		l := f.LatestRecord()
		out[i] = fmt.Sprintf("%v %v %s %d | %v %v %s", f.Time, f.Origin, f.Path, f.N, l.Time, l.Origin, l.Path)
	}
	return out
}

// TestGroupsWhateverTheReadingOrder checks that the same failures read by
// several collectors, each in its own order, make the same groups as read
// by one in order: the same records shown, the same counts.
func TestGroupsWhateverTheReadingOrder(t *testing.T) {
	rs := groupRecords(2000)
	want := describeGroups(collect(rs...).Failures)
	cs := make([]*Collector, 3)
	for k := range cs {
		cs[k] = NewCollector()
	}
	for i := len(rs) - 1; i >= 0; i-- { // backwards, spread by file
		cs[int(rs[i].Origin.File[0]-'a')%len(cs)].Request(&rs[i])
	}
	got := describeGroups(Merge(cs...).Failures)
	if !slices.Equal(got, want) {
		t.Errorf("groups differ with the reading order:\n%v\nwant\n%v", got, want)
	}
	if again := describeGroups(Merge(cs...).Failures); !slices.Equal(again, want) {
		t.Errorf("merging the collectors again changed their groups:\n%v\nwant\n%v", again, want)
	}
	if len(want) != 4*40 {
		t.Errorf("%d groups, want one per second and backend (160)", len(want))
	}
}

// TestJoinGroupsWhenHashesCollide checks that groups of one second whose
// hashes collide are joined only with their equals: with every hash the
// same, the groups of three Collectors join as they do by their hashes.
func TestJoinGroupsWhenHashesCollide(t *testing.T) {
	rs := groupRecords(2000)
	join := func(hash func(*Failure) uint64) []string {
		cs := []*Collector{NewCollector(), NewCollector(), NewCollector()}
		for i := range rs {
			cs[i%3].Request(&rs[i])
		}
		var fs []*Failure
		for _, c := range cs {
			for id, g := range c.failures {
				fs = append(fs, g.failure(id.sec))
			}
		}
		got := describeGroups(joinGroups(fs, hash))
		slices.Sort(got)
		return got
	}
	want := join(groupHash)
	if got := join(func(*Failure) uint64 { return 7 }); !slices.Equal(got, want) {
		t.Errorf("groups joined with colliding hashes:\n%v\nwant\n%v", got, want)
	}
	if len(want) != 4*40 {
		t.Errorf("%d groups, want one per second and backend (160)", len(want))
	}
}

// TestWindowCountsEveryRecord checks that the weight of a group reaches
// every count of a window over it: the failed requests, their statuses
// and kinds, each backend's attempts and requests, and the window's ends.
func TestWindowCountsEveryRecord(t *testing.T) {
	rs := groupRecords(400) // 10 a second, 40 s, 4 backends
	d := collect(rs...)
	a := &Analysis{Dataset: d, Identities: &Identities{}}
	a.Signals = a.attribute()
	if len(a.Signals) >= len(rs) {
		t.Fatalf("%d signals for %d records: nothing grouped", len(a.Signals), len(rs))
	}
	w := Summarize(a.Signals)
	if w.Count != 400 || w.Failed != 400 || w.StatusCounts[502] != 400 || w.Kinds[sources.FailureRefused] != 400 {
		t.Errorf("window counts %d, %d failed, %v, %v; want 400 each", w.Count, w.Failed, w.StatusCounts, w.Kinds)
	}
	if !w.Start.Equal(rs[0].Time) || !w.End.Equal(rs[len(rs)-1].Time) {
		t.Errorf("window %v..%v, want %v..%v", w.Start, w.End, rs[0].Time, rs[len(rs)-1].Time)
	}
	for _, f := range w.ByIP {
		if f.Attempts != 100 || f.Requests != 100 || f.Ports[8080] != 100 {
			t.Errorf("%v: %d attempts, %d requests, ports %v; want 100 each", f.IP, f.Attempts, f.Requests, f.Ports)
		}
	}
	last := w.ByIP[rs[len(rs)-1].Backend.Addr()]
	if last == nil || !last.Last.Equal(rs[len(rs)-1].Time) {
		t.Errorf("the last backend's attempts end at %v, want %v", last, rs[len(rs)-1].Time)
	}
}

// TestSplitMeasuresGapsFromTheLatestRecord checks that a group's later
// records close the gap to the next signal: a group that began 5.5 s
// before the next but ended 4.6 s before it is no gap of 5 s.
func TestSplitMeasuresGapsFromTheLatestRecord(t *testing.T) {
	a, b := groupBase(), groupBase()
	base := a.Time.Truncate(time.Second)
	a.Time, b.Time, b.Origin.Line = base.Add(100*time.Millisecond), base.Add(900*time.Millisecond), 2
	f := collect(a, b).Failures[0]
	next := groupOf(&sources.Request{Time: base.Add(5600 * time.Millisecond), Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend})
	sigs := []*Signal{{Group: f}, {Group: next}}
	if runs := Split(sigs, 5*time.Second); len(runs) != 1 {
		t.Errorf("%d runs, want 1", len(runs))
	}
}

// TestKeptFailuresBoundedByKeys checks that memory follows the keys, not
// the records: a million failures of one backend over 100 s make 100
// groups.
func TestKeptFailuresBoundedByKeys(t *testing.T) {
	const n, seconds = 1_000_000, 100
	c := NewCollector()
	r := groupBase()
	start := r.Time.Truncate(time.Second)
	for i := range n {
		r.Time = start.Add(time.Duration(i) * seconds * time.Second / n)
		r.Origin.Line = i + 1
		c.Request(&r)
	}
	if groups := len(c.failures); groups != seconds {
		t.Fatalf("%d groups, want %d", groups, seconds)
	}
	if len(c.keys) != 1 {
		t.Fatalf("%d keys, want 1", len(c.keys))
	}
	total := 0
	for _, f := range Merge(c).Failures {
		total += f.N
	}
	if total != n {
		t.Errorf("the groups hold %d records, want %d", total, n)
	}
}

// TestGroupShowsItsRecordsWhole checks that groups sharing a key across
// seconds each show their earliest record whole, as it was read (its own
// duration and time zone included, though grouping reads neither), and
// their latest record with the key's fields.
func TestGroupShowsItsRecordsWhole(t *testing.T) {
	var rs []sources.Request
	for i := range 6 {
		r := groupBase()
		r.Time = r.Time.Add(time.Duration(i) * 400 * time.Millisecond)
		r.Duration = time.Duration(i+1) * time.Millisecond
		r.Path = fmt.Sprintf("/api/items/%d", i)
		r.Origin.Line = i + 1
		r.Attempts = []sources.Attempt{{Backend: r.Backend, Status: 502, Failure: sources.FailureRefused}}
		if i%3 == 1 { // a zone of its own, as an nginx time with an offset has
			r.Time = r.Time.In(time.FixedZone("", 3600))
		}
		rs = append(rs, r)
	}
	d := collect(rs[3], rs[1], rs[0], rs[2], rs[5], rs[4])
	want := [][2]int{{0, 2}, {3, 4}, {5, 5}} // earliest and latest record of each second
	if len(d.Failures) != len(want) {
		t.Fatalf("%d groups, want %d", len(d.Failures), len(want))
	}
	for i, f := range d.Failures {
		first, last := rs[want[i][0]], rs[want[i][1]]
		// A record's own duration is kept only if the request was retried
		// (see groupDuration): these were tried once.
		first.Duration, last.Duration = 0, 0
		if !reflect.DeepEqual(*f.Record(), first) {
			t.Errorf("group %d shows %+v, want %+v", i, *f.Record(), first)
		}
		if l := *f.LatestRecord(); !reflect.DeepEqual(l, last) {
			t.Errorf("group %d: latest %+v, want %+v", i, l, last)
		}
	}
}
