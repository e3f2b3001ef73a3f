package sources

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// timesHandler keeps the time of every record, by kind.
type timesHandler struct {
	mu                  sync.Mutex
	requests, lifecycle []time.Time
}

func (h *timesHandler) Request(r *Request) {
	h.mu.Lock()
	h.requests = append(h.requests, r.Time)
	h.mu.Unlock()
}
func (h *timesHandler) Lifecycle(l *Lifecycle) {
	h.mu.Lock()
	h.lifecycle = append(h.lifecycle, l.Time)
	h.mu.Unlock()
}
func (h *timesHandler) Config(*Config) {}

func readTimes(t *testing.T, text string, tz *time.Location) (*timesHandler, *Result) {
	t.Helper()
	p := writeFile(t, t.TempDir(), "controller.log", []byte(text))
	h := &timesHandler{}
	res, err := Read(t.Context(), []string{p}, Options{TZ: tz}, func(*InputReport) Handler { return h })
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(h.requests, func(i, j int) bool { return h.requests[i].Before(h.requests[j]) })
	return h, res
}

const (
	zoneAccess = `203.0.113.10 - - [02/Jan/2024:11:04:05 +0800] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`
	zoneError  = `2024/01/02 11:04:06 [error] 31#31: *1234 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`
	zoneKlog   = `W0102 11:04:08.123456       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.`
)

// TestZoneLessLinesTakeTheInputsOffset checks that an ingress-nginx log
// written in local time gets its error-log and klog times read at the
// offset of its access-log times, whatever --tz says, with a warning.
func TestZoneLessLinesTakeTheInputsOffset(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	for _, tz := range []*time.Location{time.UTC, berlin} {
		h, res := readTimes(t, zoneAccess+"\n"+zoneError+"\n"+zoneKlog+"\n", tz)
		want := []time.Time{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)}
		if len(h.requests) != 2 || !h.requests[0].Equal(want[0]) || !h.requests[1].Equal(want[1]) {
			t.Errorf("--tz %s: requests at %v, want %v", tz, h.requests, want)
		}
		if len(h.lifecycle) != 1 || !h.lifecycle[0].Equal(time.Date(2024, 1, 2, 3, 4, 8, 123456000, time.UTC)) {
			t.Errorf("--tz %s: klog line at %v", tz, h.lifecycle)
		}
		if !hasWarning(res, "controller.log", "UTC+08:00", "access-log") {
			t.Errorf("--tz %s: no warning naming the offset in %q", tz, res.Warnings)
		}
	}
	// An input whose access lines are in the --tz zone needs no warning.
	utc := strings.Replace(zoneAccess, "11:04:05 +0800", "03:04:05 +0000", 1)
	if _, res := readTimes(t, utc+"\n"+strings.Replace(zoneError, "11:04:06", "03:04:06", 1)+"\n", time.UTC); len(res.Warnings) != 0 {
		t.Errorf("warnings %q for an input in UTC", res.Warnings)
	}
}

// TestStampsBeatTZ checks that a zone-less line behind an exact stamp
// (kubectl logs --timestamps) is dated by the stamp, not moved by --tz.
func TestStampsBeatTZ(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	// The controller's clock is UTC; the stamps say so exactly.
	text := "2024-01-02T03:04:06.250000000Z " + strings.Replace(zoneError, "11:04:06", "03:04:06", 1) + "\n" +
		"2024-01-02T03:04:08.123456789Z " + strings.Replace(zoneKlog, "11:04:08", "03:04:08", 1) + "\n"
	h, res := readTimes(t, text, berlin)
	if len(h.requests) != 1 || !h.requests[0].Equal(time.Date(2024, 1, 2, 3, 4, 6, 250000000, time.UTC)) {
		t.Errorf("error-log line at %v, want the stamp's 03:04:06.25 UTC", h.requests)
	}
	if len(h.lifecycle) != 1 || !h.lifecycle[0].Equal(time.Date(2024, 1, 2, 3, 4, 8, 123456000, time.UTC)) {
		t.Errorf("klog line at %v, want 03:04:08.123456 UTC", h.lifecycle)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
	// Without a stamp, --tz is what there is.
	h, _ = readTimes(t, strings.Replace(zoneError, "11:04:06", "03:04:06", 1)+"\n", berlin)
	if len(h.requests) != 1 || !h.requests[0].Equal(time.Date(2024, 1, 2, 2, 4, 6, 0, time.UTC)) {
		t.Errorf("bare error-log line in Berlin at %v, want 02:04:06 UTC", h.requests)
	}
}
