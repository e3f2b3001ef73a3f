package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath is where Debian's chromium package (installed by .ci/run) puts the browser.
const chromiumPath = "/usr/bin/chromium"

// chromiumFlags keep a headless run offline, quiet and free of first-run work;
// logging to stderr makes the page's console messages visible to the test.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
	"--enable-logging=stderr", "--v=0"}

// reConsole matches chromium's log line for a message the page wrote to its
// console, an uncaught exception, or a Content-Security-Policy refusal.
var reConsole = regexp.MustCompile(`(?m)^.*(:CONSOLE[:(].*|Uncaught .*|Refused to .*)$`)

// TestBrowserRendersReports opens the HTML report of each seed fixture (and of
// the hostile-content fixture) in headless chromium: it saves a screenshot to
// a folder that is kept and printed, and checks from the parsed DOM and the
// browser log that the page's script ran, nothing was logged to the console
// (no errors, no CSP refusals) and there is one SVG lane per backend.
func TestBrowserRendersReports(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install Debian's chromium (apt-get install -y chromium; .ci/run does) to run the browser test", chromiumPath)
	}
	shots, err := os.MkdirTemp("", "readygap-screenshots-")
	must(t, err)
	t.Logf("screenshots in %s", shots)
	fmt.Printf("readygap HTML report screenshots: %s\n", shots)
	for _, name := range append([]string{"hostile-content"}, seedFixtures[:4]...) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := fixtureReport(t, filepath.Join("..", "fixtures", name))
			page := filepath.Join(shots, name+".html")
			var buf bytes.Buffer
			must(t, renderHTML(&buf, rep))
			must(t, os.WriteFile(page, buf.Bytes(), 0o644))
			url := "file://" + page

			png := filepath.Join(shots, name+".png")
			_, log := runChromium(t, "--screenshot="+png, "--window-size=1280,2400", url)
			if st, err := os.Stat(png); err != nil || st.Size() == 0 {
				t.Fatalf("no screenshot written (%v); browser log:\n%s", err, log)
			}
			t.Logf("screenshot: %s", png)
			fmt.Printf("readygap HTML report screenshot: %s\n", png)
			checkConsole(t, log)

			dom, log := runChromium(t, "--dump-dom", url)
			checkConsole(t, log)
			if !strings.Contains(dom, `data-script="ok"`) {
				t.Errorf("the page's script did not run to its end (blocked or failed); browser log:\n%s", log)
			}
			if got := strings.Count(dom, `class="lane"`); got != len(rep.Lanes) || got == 0 {
				t.Errorf("%d SVG lanes in the DOM, want %d (one per backend)", got, len(rep.Lanes))
			}
			if got := strings.Count(dom, "<script"); got != 1 {
				t.Errorf("%d script elements in the DOM, want only the page's own", got)
			}
		})
	}
}

// runChromium runs headless chromium with args and returns its standard output and its log.
func runChromium(t *testing.T, args ...string) (stdout, log string) {
	t.Helper()
	profile, err := os.MkdirTemp("", "readygap-chromium-")
	must(t, err)
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, append(append(chromiumFlags, "--user-data-dir="+profile), args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// checkConsole fails the test for every console message, uncaught error or
// policy refusal in a chromium log.
func checkConsole(t *testing.T, log string) {
	t.Helper()
	for _, line := range reConsole.FindAllString(log, -1) {
		t.Errorf("browser console: %s", line)
	}
}
