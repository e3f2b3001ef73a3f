package sources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// gcpPathResult is what one way of reading an element gave: its error and
// what it reported, twice over (the second time as a duplicate).
type gcpPathResult struct {
	errs    [2]string
	c       *collector
	records int
	dups    int
}

// gcpReadBothWays reads elem twice through ParseJSON's two steps (the scan,
// then fastjson for what it does not vouch for) and twice through fastjson
// alone, each way with its own emitter and deduplication, and fails the
// test when the two differ. It reports whether the scan read elem itself.
func gcpReadBothWays(t testing.TB, elem []byte) (scanned bool) {
	t.Helper()
	read := func(fast bool) gcpPathResult {
		r := gcpPathResult{c: &collector{}}
		rep := &InputReport{}
		em := newEmitter(r.c, &Options{}, rep, newDedupSet())
		st := &gcpState{}
		for i := range r.errs {
			o := Origin{File: "both", Line: i + 1}
			var err error
			done := false
			if fast {
				done, err = st.parseScanned(elem, o, em)
				scanned = done
			}
			if !done {
				err = st.parseTree(elem, o, em)
			}
			if err != nil {
				r.errs[i] = err.Error()
			}
		}
		r.records, r.dups = rep.Records, rep.Duplicates
		return r
	}
	fast, tree := read(true), read(false)
	if fast.errs != tree.errs || fast.records != tree.records || fast.dups != tree.dups {
		t.Fatalf("scan: errors %q, %d records, %d duplicates; fastjson: errors %q, %d records, %d duplicates\n%s",
			fast.errs, fast.records, fast.dups, tree.errs, tree.records, tree.dups, elem)
	}
	if !reflect.DeepEqual(fast.c, tree.c) {
		t.Fatalf("scan reported\n%+v\nfastjson reported\n%+v\nfor %s", fast.c, tree.c, elem)
	}
	return scanned
}

// TestGCPScanMatchesFastjson feeds the scan and fastjson the same odd
// entries, variants of a real request entry, and checks that they report
// the same records and errors, and that the scan read itself exactly the
// entries it understands.
func TestGCPScanMatchesFastjson(t *testing.T) {
	base := gcpCompact(t, gcpRef15)
	deep := func(depth int) string {
		// The entry is depth 1 and its value depth 2: nest arrays below it
		// until the innermost is at depth.
		return `"x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `,"logName"`
	}
	tests := []struct {
		name     string
		old, new string // replace the first old in the compact entry by new
		scanned  bool
	}{
		{"compact", ``, ``, true},
		{"escaped quote in a skipped value", `"userAgent":"curl/8.5.0"`, `"userAgent":"curl \"8.5.0\""`, true},
		{"escaped backslash ending a skipped value", `"userAgent":"curl/8.5.0"`, `"userAgent":"curl\\"`, true},
		{"escaped backslash then quote in a skipped value", `"userAgent":"curl/8.5.0"`, `"userAgent":"a\\\"b\\\\"`, true},
		{"escape in a skipped object's key", `"severity":"INFO"`, `"severity":{"se\"v\u0041":1}`, true},
		{"raw line break in a skipped value", `"userAgent":"curl/8.5.0"`, "\"userAgent\":\"curl\n  }\"", true},
		{"skipped literals and numbers", `"severity":"INFO"`, `"severity":[true,false,null,0,-1,1.5e+3,12,-0.5E-2,{}, [],{"a":{"b":[]}}]`, true},
		{"duplicate skipped key", `"severity":"INFO"`, `"severity":"INFO","severity":"INFO"`, true},
		{"receiveTimestamp only", `,"timestamp":"2024-05-01T12:00:06.401233Z"`, ``, true},
		{"status 0", `"status":200`, `"status":0`, true},
		{"status absent", `"status":200,`, ``, true},
		{"status 999", `"status":200`, `"status":999`, true},
		{"no statusDetails, proxyStatus", `"statusDetails":"response_sent_by_backend"`, `"proxyStatus":"error=\u0022x\u0022"`, false},
		{"proxyStatus", `"statusDetails":"response_sent_by_backend"`, `"proxyStatus":"error=x; details=failed_to_pick_backend"`, true},
		{"empty labels", `"labels":{`, `"labels":{},"l":{`, true},
		{"url map label only", `"backend_service_name":"k8s1-1a2b3c4d-default-web-80-5e6f7a8b",`, ``, true},
		// Entries of no kind the scan reads go to fastjson, which reads
		// their payload (gcp_payload.go).
		{"no resource", `"resource":`, `"r":`, false},
		{"other entry", `"type":"http_load_balancer"`, `"type":"k8s_container"`, false},
		{"no httpRequest", `"httpRequest"`, `"h"`, false},
		{"bad serverIp", `"serverIp":"10.52.1.23"`, `"serverIp":"10.52.1"`, true},
		{"bad timestamp", `"timestamp":"2024-05-01T12:00:06.401233Z"`, `"timestamp":"2024-05-01"`, true},
		{"no insertId", `"insertId"`, `"i"`, true},
		{"nesting at fastjson.MaxDepth", `"logName"`, deep(fastjson.MaxDepth), true},

		{"nesting past fastjson.MaxDepth", `"logName"`, deep(fastjson.MaxDepth + 1), false},
		{"escaped slash in requestUrl", `"requestUrl":"https://shop`, `"requestUrl":"https:\/\/shop`, false},
		{"escape in logName", `"logName":"projects/my-project/logs/requests"`, `"logName":"projects/my-project/logs/\u0072equests"`, false},
		{"escape in a read key", `"logName"`, `"log\u004eame"`, false},
		{"escape in a key beside read ones", `"severity"`, `"sev\u0065rity"`, false},
		{"escape in a key of httpRequest", `"userAgent"`, `"user\u0041gent"`, false},
		{"duplicate logName", `"logName":"projects/my-project/logs/requests"`, `"logName":"projects/my-project/logs/events","logName":"projects/my-project/logs/requests"`, false},
		{"duplicate status", `"status":200`, `"status":503,"status":200`, false},
		{"duplicate label", `"backend_service_name":"k8s1`, `"backend_service_name":"","backend_service_name":"k8s1`, false},
		{"duplicate resource", `"resource":`, `"resource":{"type":"k8s_container"},"resource":`, false},
		{"status null", `"status":200`, `"status":null`, false},
		{"status string", `"status":200`, `"status":"200"`, false},
		{"status with fraction", `"status":200`, `"status":200.0`, false},
		{"status with exponent", `"status":200`, `"status":2e2`, false},
		{"status without a value", `"status":200`, `"status":`, false},
		{"status with a leading zero", `"status":200`, `"status":020`, true},
		{"status of four digits with a leading zero", `"status":200`, `"status":0200`, false},
		{"status of four digits", `"status":200`, `"status":1000`, false},
		{"negative status", `"status":200`, `"status":-200`, false},
		{"serverIp null", `"serverIp":"10.52.1.23"`, `"serverIp":null`, false},
		{"timestamp number", `"timestamp":"2024-05-01T12:00:06.401233Z"`, `"timestamp":1714564806`, false},
		{"labels string", `"labels":{`, `"labels":"x","l":{`, false},
		{"jsonPayload string", `"jsonPayload":{`, `"jsonPayload":"x","j":{`, false},
		{"httpRequest null", `"httpRequest":{`, `"httpRequest":null,"h":{`, false},
		{"logName number", `"logName":"projects/my-project/logs/requests"`, `"logName":7`, false},
		{"empty logName", `"logName":"projects/my-project/logs/requests"`, `"logName":""`, false},
		{"NaN in a skipped value", `"severity":"INFO"`, `"severity":NaN`, false},
		{"nan in a skipped value", `"severity":"INFO"`, `"severity":nan`, false},
		{"-Inf in a skipped value", `"severity":"INFO"`, `"severity":-Inf`, false},
		{"lone minus", `"severity":"INFO"`, `"severity":-`, false},
		{"number starting with a dot", `"severity":"INFO"`, `"severity":.5`, false},
		{"misspelt literal", `"severity":"INFO"`, `"severity":nul`, false},
		{"literal run on", `"severity":"INFO"`, `"severity":truex`, false},
		{"number run on", `"severity":"INFO"`, `"severity":12x`, false},
		{"empty timestamp", `"timestamp":"2024-05-01T12:00:06.401233Z"`, `"timestamp":""`, true},
		{"brace after the entry", `abcdef"}`, `abcdef"}}`, false},
		{"space and a byte after the entry", `abcdef"}`, `abcdef"} x`, false},
		{"trailing comma in the entry", `"trace":"projects/my-project/traces/1123456789abcdef0123456789abcdef"`, `"trace":"x",`, false},
		{"trailing comma in an array", `"CACHE_MODE_USE_ORIGIN_HEADERS"]`, `"CACHE_MODE_USE_ORIGIN_HEADERS",]`, false},
		{"missing comma", `,"severity"`, ` "severity"`, false},
		{"missing colon", `"severity":`, `"severity" `, false},
		{"unclosed string", `"userAgent":"curl/8.5.0"`, `"userAgent":"curl/8.5.0`, false},
		{"key not a string", `"severity"`, `severity`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elem := base
			if tt.old != "" {
				if !strings.Contains(elem, tt.old) {
					t.Fatalf("%q is not in the entry", tt.old)
				}
				elem = strings.Replace(elem, tt.old, tt.new, 1)
			}
			if got := gcpReadBothWays(t, []byte(elem)); got != tt.scanned {
				t.Errorf("scanned = %v, want %v", got, tt.scanned)
			}
		})
	}
}

// gcpCompact returns the entry without white space outside its strings.
func gcpCompact(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGCPScanLayouts checks that the scan reads an entry however it is laid
// out: compact, indented by gcloud's two spaces or by tabs, with CRLF line
// breaks, and with white space around the whole of it.
func TestGCPScanLayouts(t *testing.T) {
	compact := gcpCompact(t, gcpRef15)
	var tabs bytes.Buffer
	if err := json.Indent(&tabs, []byte(compact), "", "\t"); err != nil {
		t.Fatal(err)
	}
	layouts := map[string]string{
		"two spaces":   gcpRef15,
		"tabs":         tabs.String(),
		"CRLF":         strings.ReplaceAll(gcpRef15, "\n", "\r\n"),
		"spaces round": " \r\n\t" + compact + "\n \t",
		"space before colons and commas": strings.NewReplacer(`":`, `" : `, `,`, ` , `).Replace(
			strings.ReplaceAll(compact, `"curl/8.5.0"`, `"curl"`)),
	}
	for name, elem := range layouts {
		t.Run(name, func(t *testing.T) {
			if !gcpReadBothWays(t, []byte(elem)) {
				t.Error("the scan did not read it")
			}
		})
	}
}

// TestGCPScanCutShort checks every head of entries cut short: fastjson
// refuses each, and the scan must read none.
func TestGCPScanCutShort(t *testing.T) {
	for _, entry := range []string{gcpRef15, gcpCompact(t, gcpRef16)} {
		for n := range len(entry) - 1 {
			if gcpReadBothWays(t, []byte(entry[:n])) {
				t.Fatalf("the scan read the head %q", entry[:n])
			}
		}
	}
}

// TestGCPScanSamples reads every entry of the real samples, the reference
// entries and the benchmark's both ways.
func TestGCPScanSamples(t *testing.T) {
	var elems [][]byte
	for _, s := range []string{gcpRef14, gcpRef15, gcpRef16, gcpRef52, gcpRef53Pulling, gcpRef53Endpoints,
		gcpRef62Real, gcpRef62NEG, gcpExporterRestart} {
		elems = append(elems, []byte(s))
	}
	for _, e := range gcpSplit(t, []byte(gcpRef78)) {
		elems = append(elems, e.data)
	}
	files, err := os.ReadDir(gcpSampleDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range files {
		if fi.Name() == "NOTICE" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(gcpSampleDir, fi.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range gcpSplit(t, data) {
			elems = append(elems, e.data)
		}
	}
	elems = append(elems, gcpBenchEntries(50)...)
	scanned := 0
	for i, e := range elems {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if gcpReadBothWays(t, e) {
				scanned++
			}
		})
	}
	// The requests of the references, samples and benchmark are read by the
	// scan; events, health checks and the rest go to fastjson.
	if scanned < len(elems)/2 {
		t.Errorf("the scan read %d of %d entries", scanned, len(elems))
	}
}
