package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package (installed by .ci/run) puts the browser.
const chromiumPath = "/usr/bin/chromium"

// browserWidths are the viewport widths the HTML report is checked at: a
// desktop window and a phone.
var browserWidths = []int{1400, 390}

// minLanePixels is the least height a lane may have on screen.
const minLanePixels = 14

// pageChecks measures a loaded report page: every element (outside the
// charts' scroll boxes) that reaches beyond the viewport, the rendered
// height of the lanes, the lanes drawn, and whether the page's script ran.
const pageChecks = `(() => {
  const vw = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.parentElement && el.parentElement.closest('.chart-box')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > vw + 0.5 || r.left < -0.5) {
      const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().replace(/\s+/g, '.') : '';
      wide.push(el.tagName.toLowerCase() + cls + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  const lanes = [...document.querySelectorAll('#lanes .lane-bg')].map(e => e.getBoundingClientRect().height);
  return {
    viewport: vw,
    pageWidth: document.documentElement.scrollWidth,
    wide: wide.slice(0, 12),
    wideCount: wide.length,
    minLane: lanes.length ? Math.min(...lanes) : 0,
    lanes: document.querySelectorAll('#lanes g.lane').length,
    scripts: document.querySelectorAll('script').length,
    script: document.documentElement.dataset.script || '',
  };
})()`

// pageResult is what pageChecks returns.
type pageResult struct {
	Viewport  float64  `json:"viewport"`
	PageWidth float64  `json:"pageWidth"`
	Wide      []string `json:"wide"`
	WideCount int      `json:"wideCount"`
	MinLane   float64  `json:"minLane"`
	Lanes     int      `json:"lanes"`
	Scripts   int      `json:"scripts"`
	Script    string   `json:"script"`
}

// TestBrowserRendersReports opens the HTML report of each seed fixture (and
// of the hostile-content fixture) in headless chromium, driven through the
// DevTools protocol, at 1400 and 390 pixels wide. It checks that nothing
// reached the console (no error, no Content-Security-Policy refusal), that
// the page's script ran, that no element but the charts (which scroll in
// their own box) is wider than the viewport, that lanes are at least
// minLanePixels tall, and that the page draws one lane per row of the
// report's lane view; it saves a full-page screenshot of each to a folder
// that is kept and printed.
func TestBrowserRendersReports(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install Debian's chromium (apt-get install -y chromium; .ci/run does) to run the browser test", chromiumPath)
	}
	shots, err := os.MkdirTemp("", "readygap-screenshots-")
	must(t, err)
	fmt.Printf("readygap HTML report screenshots: %s\n", shots)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	must(t, chromedp.Do(browser)) // start the browser once

	for _, name := range append([]string{"hostile-content"}, seedFixtures...) {
		rep := fixtureReport(t, filepath.Join("..", "fixtures", name))
		var buf bytes.Buffer
		must(t, renderHTML(&buf, rep))
		page := filepath.Join(shots, name+".html")
		must(t, os.WriteFile(page, buf.Bytes(), 0o644))
		rows := len(newCharts(rep).Lanes)
		for _, width := range browserWidths {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				res, console, first, full := loadPage(t, browser, "file://"+page, width)
				for suffix, png := range map[string][]byte{"first-screen": first, "full": full} {
					shot := filepath.Join(shots, fmt.Sprintf("%s-%d-%s.png", name, width, suffix))
					must(t, os.WriteFile(shot, png, 0o644))
					fmt.Printf("readygap HTML report screenshot: %s\n", shot)
				}
				for _, msg := range console {
					t.Errorf("browser console: %s", msg)
				}
				if res.Script != "ok" || res.Scripts != 1 {
					t.Errorf("the page's script did not run to its end, or there are %d scripts", res.Scripts)
				}
				if res.WideCount > 0 || res.PageWidth > res.Viewport {
					t.Errorf("page %.0f px wide in a %.0f px viewport; %d elements reach beyond it outside the charts: %s",
						res.PageWidth, res.Viewport, res.WideCount, strings.Join(res.Wide, "; "))
				}
				if res.Lanes != rows || rows == 0 {
					t.Errorf("%d lanes drawn, want %d (the report's rows)", res.Lanes, rows)
				}
				if res.MinLane < minLanePixels {
					t.Errorf("lanes are %.1f px tall, want at least %d", res.MinLane, minLanePixels)
				}
			})
		}
	}
}

// loadPage opens url in a new tab of browser with a viewport width px wide
// (a phone's, with touch and the page's viewport meta honoured, under 600),
// waits for the page's script, and returns the checks, the console
// messages, and screenshots of the first screen and of the whole page.
func loadPage(t *testing.T, browser context.Context, url string, width int) (res pageResult, console []string, first, full []byte) {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	messages := chromedp.Console(tab) // subscribed from here on
	collected := make(chan []string)
	go func() {
		var out []string
		for m, err := range messages {
			if err != nil {
				break
			}
			out = append(out, m.String())
		}
		collected <- out
	}()
	viewport := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if width < 600 {
		viewport = append(viewport, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	err := chromedp.Do(tab,
		chromedp.EmulateViewport(int64(width), 900, viewport...),
		chromedp.Navigate(url),
		chromedp.WaitReady(chromedp.CSS(`html[data-script="ok"]`)),
	)
	if err != nil {
		t.Fatalf("load %s at %d px: %v", url, width, err)
	}
	res, err = chromedp.Run(tab, chromedp.Evaluate[pageResult](pageChecks))
	if err != nil {
		t.Fatalf("measure %s at %d px: %v", url, width, err)
	}
	if first, err = chromedp.Run(tab, chromedp.CaptureScreenshot()); err != nil {
		t.Fatalf("screenshot %s at %d px: %v", url, width, err)
	}
	if full, err = chromedp.Run(tab, chromedp.FullScreenshot(100)); err != nil {
		t.Fatalf("screenshot %s at %d px: %v", url, width, err)
	}
	cancel()
	return res, <-collected, first, full
}
