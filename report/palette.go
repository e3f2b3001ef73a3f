package report

import (
	"fmt"
	"strings"
)

// The colours of the HTML report are the eight of Okabe and Ito's "Color
// Universal Design" palette (2008), chosen to stay apart for the common
// colour-vision deficiencies, plus greys. TestPaletteSurvivesColourBlindness
// checks that, simulated with Machado et al.'s (2009) model of protanopia,
// deuteranopia and tritanopia, every pair the charts set side by side
// still differs by at least minColourDistance (CIEDE2000).
const (
	oiBlack         = "#000000"
	oiOrange        = "#E69F00"
	oiSkyBlue       = "#56B4E9"
	oiBluishGreen   = "#009E73"
	oiYellow        = "#F0E442"
	oiBlue          = "#0072B2"
	oiVermillion    = "#D55E00"
	oiReddishPurple = "#CC79A7"
	greyOK          = "#D4D4D4"
	greyUnknown     = "#777777"
)

// outcome is one category of the requests chart: a series column, its CSS
// class, colour and legend label.
type outcome struct {
	column        int
	class, colour string
	label         string
}

// outcomes are the chart's categories in stacking order from the baseline
// up: the load balancer's own failures first so that they stand on the
// axis, then the application's 5xx, requests a retry rescued, and ok. They
// are the series columns, so the chart counts what the verdict counts.
var outcomes = []outcome{
	{ColNoBackend, "o-nobackend", oiVermillion, "no backend"},
	{ColRefused, "o-refused", oiOrange, "refused"},
	{ColUnreachable, "o-unreachable", oiBlue, "unreachable"},
	{ColClosed, "o-closed", oiSkyBlue, "closed / reset"},
	{ColTimeout, "o-timeout", oiBluishGreen, "timeout"},
	{ColOther, "o-other", oiBlack, "other LB/proxy error"},
	{ColApp, "o-app", oiReddishPurple, "app 5xx (the backend's own)"},
	{ColHidden, "o-hidden", oiYellow, "failed attempt, rescued by a retry"},
	{ColOK, "o-ok", greyOK, "ok"},
}

// roleColours are the lane colours of ReplicaSets by the role of their
// pods: new ones blue, old ones orange, the rest grey; a second ReplicaSet
// of one role takes the second colour, a third the first again.
var roleColours = map[string][]string{
	"new": {oiBlue, oiSkyBlue},
	"old": {oiOrange, oiVermillion},
	"":    {greyUnknown},
}

// Opacity of a lane's colour in each state, over white: starting is an
// outline only, Ready for Kubernetes a tint, healthy for the LB the full
// colour; terminating is hatched.
const readyOpacity = 0.45

// laneColourClasses lists every lane colour once, as the CSS classes c0, c1, ….
var laneColourClasses = func() []string {
	var out []string
	seen := map[string]bool{}
	for _, role := range []string{"new", "old", ""} {
		for _, c := range roleColours[role] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}()

// colourClass is the CSS class of a lane colour.
func colourClass(colour string) string {
	for i, c := range laneColourClasses {
		if c == colour {
			return fmt.Sprintf("c%d", i)
		}
	}
	return "c0"
}

// paletteCSS is the style rules of the palette: lane colours (fill and
// swatch background), their hatch patterns' strokes and the hatched
// terminating state, and the outcomes.
func paletteCSS() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".st{stroke-width:0}.st-starting{stroke-width:1.5}.st-ready{fill-opacity:%g}.st-terminating{stroke-width:1}", readyOpacity)
	for i, c := range laneColourClasses {
		fmt.Fprintf(&b, ".c%d{fill:%s;background:%s;stroke:%s}.h%d{stroke:%s}.st-starting.c%d{fill:#fff}.st-terminating.c%d{fill:url(#hatch-c%d)}",
			i, c, c, c, i, c, i, i, i)
	}
	for _, o := range outcomes {
		fmt.Fprintf(&b, ".%s{fill:%s;background:%s}", o.class, o.colour, o.colour)
	}
	return b.String()
}
