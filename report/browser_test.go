package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
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

// chartChecks measures the charts' boxes as the page opened them: whether
// each scrolls, how far it was scrolled, whether the first incident's
// shaded window lies inside the box's visible part, the shades on its
// sides, and whether the scroll cue shows. It also returns where to tap:
// the middle of the visible part of the lanes chart's first incident
// window, scrolled into view.
const chartChecks = `(() => {
  const boxes = [...document.querySelectorAll('.chart-box')].map(b => {
    const w = b.querySelector('rect.window'), br = b.getBoundingClientRect();
    const wr = w ? w.getBoundingClientRect() : null;
    return {
      overflows: b.scrollWidth > b.clientWidth + 1,
      scrollLeft: b.scrollLeft,
      incidentVisible: wr ? wr.left >= br.left - 1 && wr.left < br.right - 8 : false,
      hasIncident: !!w,
      shades: b.parentNode.className,
    };
  });
  const cue = document.getElementById('scroll-cue');
  const w = document.querySelector('#lanes rect.window');
  let tapX = 0, tapY = 0;
  if (w) {
    w.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = w.getBoundingClientRect(), br = w.closest('.chart-box').getBoundingClientRect();
    tapX = (Math.max(r.left, br.left) + Math.min(r.right, br.right)) / 2;
    tapY = r.top + Math.min(40, r.height / 2);
  }
  return {boxes, cue: !!cue && !cue.hidden, note: document.querySelector('#timeline + .note')?.textContent || '', tapX, tapY};
})()`

// chartResult is what chartChecks returns.
type chartResult struct {
	Boxes []struct {
		Overflows       bool    `json:"overflows"`
		ScrollLeft      float64 `json:"scrollLeft"`
		IncidentVisible bool    `json:"incidentVisible"`
		HasIncident     bool    `json:"hasIncident"`
		Shades          string  `json:"shades"`
	} `json:"boxes"`
	Cue  bool    `json:"cue"`
	Note string  `json:"note"`
	TapX float64 `json:"tapX"`
	TapY float64 `json:"tapY"`
}

// tapInfo is the line a tap writes, and the cursor's label.
const tapInfo = `(() => { const i = document.getElementById('tap-info'); return {shown: !i.hidden, text: i.textContent,
  cursor: document.querySelector('#lanes .cursor-label.on')?.textContent || ''}; })()`

// tapResult is what tapInfo returns.
type tapResult struct {
	Shown  bool   `json:"shown"`
	Text   string `json:"text"`
	Cursor string `json:"cursor"`
}

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
		rep := saved(t, name)
		var buf bytes.Buffer
		must(t, renderHTML(&buf, rep))
		page := filepath.Join(shots, name+".html")
		must(t, os.WriteFile(page, buf.Bytes(), 0o644))
		rows := len(newCharts(rep).Lanes)
		for _, width := range browserWidths {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				res, charts, tap, console, first, full, tapped := loadPage(t, browser, "file://"+page, width)
				for suffix, png := range map[string][]byte{"first-screen": first, "full": full, "tapped": tapped} {
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
				checkCharts(t, width, charts, tap)
			})
		}
	}
}

// checkCharts checks how the charts open and answer a tap. On a phone each
// chart scrolls in its box: the page says so, opens it at the first
// incident (which must be in view, the box scrolled) and shades the side
// there is more on; a tap on the incident writes the exact time and what
// was tapped. On a wide screen nothing scrolls and no cue shows.
func checkCharts(t *testing.T, width int, c chartResult, tap tapResult) {
	t.Helper()
	if len(c.Boxes) != 2 {
		t.Fatalf("%d chart boxes, want 2", len(c.Boxes))
	}
	if !strings.Contains(c.Note, "tap") {
		t.Errorf("the timeline's note %q does not say a tap gives exact times", c.Note)
	}
	phone := width < 600
	for i, b := range c.Boxes {
		if b.Overflows != phone {
			t.Errorf("chart %d: scrolls %v at %d px", i, b.Overflows, width)
		}
		if !b.HasIncident {
			continue
		}
		if !b.IncidentVisible {
			t.Errorf("chart %d: the first incident is not in view (scrolled %.0f px)", i, b.ScrollLeft)
		}
		if phone && (b.ScrollLeft <= 0 || !strings.Contains(b.Shades, "more-left")) {
			t.Errorf("chart %d: scrolled %.0f px, shades %q; want it opened at the incident, shaded on the left", i, b.ScrollLeft, b.Shades)
		}
	}
	if c.Cue != phone {
		t.Errorf("scroll cue shown: %v at %d px", c.Cue, width)
	}
	if !c.Boxes[0].HasIncident {
		return
	}
	if !tap.Shown || !reExactTime.MatchString(tap.Text) || !reExactTime.MatchString(tap.Cursor) || !strings.Contains(tap.Text, " · ") {
		t.Errorf("after a tap on the incident: tap line shown %v %q, cursor %q; want the exact time and what was tapped", tap.Shown, tap.Text, tap.Cursor)
	}
}

// reExactTime is a time to the millisecond, as the cursor writes it.
var reExactTime = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{3} UTC`)

// tapAt taps the page at x, y: a touch on a phone, a mouse click otherwise.
func tapAt(x, y float64, touch bool) chromedp.Action[chromedp.Void] {
	if !touch {
		return chromedp.MouseClickXY(x, y)
	}
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		start := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}
		if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, start); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
		return err
	})
}

// loadPage opens url in a new tab of browser with a viewport width px wide
// (a phone's, with touch and the page's viewport meta honoured, under 600),
// waits for the page's script, and returns the checks, the console
// messages, and screenshots of the first screen, of the whole page and of
// the screen after a tap on the first incident in the lanes.
func loadPage(t *testing.T, browser context.Context, url string, width int) (res pageResult, charts chartResult, tap tapResult, console []string, first, full, tapped []byte) {
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
	if charts, err = chromedp.Run(tab, chromedp.Evaluate[chartResult](chartChecks)); err != nil {
		t.Fatalf("charts of %s at %d px: %v", url, width, err)
	}
	if charts.TapX > 0 {
		if err := chromedp.Do(tab, tapAt(charts.TapX, charts.TapY, width < 600)); err != nil {
			t.Fatalf("tap %s at %d px: %v", url, width, err)
		}
		if err := chromedp.Do(tab, chromedp.Poll[chromedp.Void](`!document.getElementById('tap-info').hidden`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Logf("no tap line within 5 s: %v", err)
		}
		if tap, err = chromedp.Run(tab, chromedp.Evaluate[tapResult](tapInfo)); err != nil {
			t.Fatalf("tap line of %s at %d px: %v", url, width, err)
		}
	}
	if tapped, err = chromedp.Run(tab, chromedp.CaptureScreenshot()); err != nil {
		t.Fatalf("screenshot %s at %d px: %v", url, width, err)
	}
	cancel()
	return res, charts, tap, <-collected, first, full, tapped
}
