package report

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// cvdMatrices are Machado, Oliveira and Fernandes' (2009) matrices for
// protanopia, deuteranopia and tritanopia at severity 1, applied to linear
// sRGB; the identity is normal vision.
var cvdMatrices = map[string][3][3]float64{
	"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	"protanopia":   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
	"deuteranopia": {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	"tritanopia":   {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
}

// minColourDistance is the least CIEDE2000 difference two colours the
// charts set side by side may have for any of cvdMatrices: about where
// small patches read as different colours rather than shades of one.
const minColourDistance = 10

// TestPaletteSurvivesColourBlindness simulates each colour-vision
// deficiency and checks every pair of request outcomes (they stack in one
// bar) and every pair of lane colours (ReplicaSets side by side), and that
// the lane states' tints differ from each other and from the page.
func TestPaletteSurvivesColourBlindness(t *testing.T) {
	type pair struct{ what, a, b string }
	var pairs []pair
	for i, x := range outcomes {
		for _, y := range outcomes[i+1:] {
			pairs = append(pairs, pair{x.label + " / " + y.label, x.colour, y.colour})
		}
	}
	for i, x := range laneColourClasses {
		for _, y := range laneColourClasses[i+1:] {
			pairs = append(pairs, pair{"lanes " + x + " / " + y, x, y})
		}
		// starting is white in an outline of the colour; Ready a tint; LB-healthy the colour.
		tints := []string{"#FFFFFF", tint(x, readyOpacity), x}
		for k := 1; k < len(tints); k++ {
			pairs = append(pairs, pair{fmt.Sprintf("lane %s tint %d / %d", x, k-1, k), tints[k-1], tints[k]})
		}
	}
	worst := math.Inf(1)
	for vision, m := range cvdMatrices {
		for _, p := range pairs {
			d := ciede2000(lab(simulate(m, p.a)), lab(simulate(m, p.b)))
			worst = min(worst, d)
			if d < minColourDistance {
				t.Errorf("%s: %s (%s, %s) differ by %.1f, want at least %d", vision, p.what, p.a, p.b, d, minColourDistance)
			}
		}
	}
	t.Logf("smallest difference over %d pairs and %d visions: %.1f", len(pairs), len(cvdMatrices), worst)
}

// tint mixes colour c with white: alpha 1 is c, 0 is white.
func tint(c string, alpha float64) string {
	r, g, b := rgb(c)
	mix := func(v float64) int { return int(math.Round((v*alpha + (1 - alpha)) * 255)) }
	return fmt.Sprintf("#%02X%02X%02X", mix(r), mix(g), mix(b))
}

// rgb parses #RRGGBB into gamma-encoded sRGB components in [0, 1].
func rgb(c string) (r, g, b float64) {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	return float64(v>>16&255) / 255, float64(v>>8&255) / 255, float64(v&255) / 255
}

// linear and gamma convert between gamma-encoded and linear sRGB.
func linear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// simulate returns colour c as seen with the deficiency of matrix m, in
// linear sRGB.
func simulate(m [3][3]float64, c string) [3]float64 {
	r, g, b := rgb(c)
	in := [3]float64{linear(r), linear(g), linear(b)}
	var out [3]float64
	for i := range out {
		out[i] = min(max(m[i][0]*in[0]+m[i][1]*in[1]+m[i][2]*in[2], 0), 1)
	}
	return out
}

// lab converts linear sRGB to CIELAB (D65).
func lab(c [3]float64) [3]float64 {
	x := 0.4124*c[0] + 0.3576*c[1] + 0.1805*c[2]
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	z := 0.0193*c[0] + 0.1192*c[1] + 0.9505*c[2]
	f := func(v float64) float64 {
		if v > 216.0/24389 {
			return math.Cbrt(v)
		}
		return (24389.0/27*v + 16) / 116
	}
	fx, fy, fz := f(x/0.95047), f(y), f(z/1.08883)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// ciede2000 is the CIEDE2000 colour difference of two CIELAB colours
// (Sharma, Wu and Dalal 2005).
func ciede2000(a, b [3]float64) float64 {
	rad := math.Pi / 180
	l1, a1, b1 := a[0], a[1], a[2]
	l2, a2, b2 := b[0], b[1], b[2]
	c1, c2 := math.Hypot(a1, b1), math.Hypot(a2, b2)
	cm := (c1 + c2) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cm, 7)/(math.Pow(cm, 7)+math.Pow(25, 7))))
	a1p, a2p := (1+g)*a1, (1+g)*a2
	c1p, c2p := math.Hypot(a1p, b1), math.Hypot(a2p, b2)
	hue := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) / rad
		if h < 0 {
			h += 360
		}
		return h
	}
	h1p, h2p := hue(b1, a1p), hue(b2, a2p)
	dl, dc := l2-l1, c2p-c1p
	dh := 0.0
	if c1p*c2p != 0 {
		dh = h2p - h1p
		switch {
		case dh > 180:
			dh -= 360
		case dh < -180:
			dh += 360
		}
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*rad)
	lm, cmp := (l1+l2)/2, (c1p+c2p)/2
	hm := h1p + h2p
	if c1p*c2p != 0 {
		switch {
		case math.Abs(h1p-h2p) <= 180:
			hm /= 2
		case h1p+h2p < 360:
			hm = (hm + 360) / 2
		default:
			hm = (hm - 360) / 2
		}
	}
	tt := 1 - 0.17*math.Cos((hm-30)*rad) + 0.24*math.Cos(2*hm*rad) + 0.32*math.Cos((3*hm+6)*rad) - 0.20*math.Cos((4*hm-63)*rad)
	dTheta := 30 * math.Exp(-math.Pow((hm-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(cmp, 7)/(math.Pow(cmp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*math.Pow(lm-50, 2)/math.Sqrt(20+math.Pow(lm-50, 2))
	sc := 1 + 0.045*cmp
	sh := 1 + 0.015*cmp*tt
	rt := -math.Sin(2*dTheta*rad) * rc
	return math.Sqrt(math.Pow(dl/sl, 2) + math.Pow(dc/sc, 2) + math.Pow(dH/sh, 2) + rt*(dc/sc)*(dH/sh))
}

// TestCIEDE2000 checks the colour difference against pairs of Sharma, Wu
// and Dalal's published test data.
func TestCIEDE2000(t *testing.T) {
	for _, tt := range []struct {
		a, b [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, -1.3802, -84.2814}, [3]float64{50, 0, -82.7485}, 1.0000},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
		{[3]float64{60.2574, -34.0099, 36.2677}, [3]float64{60.4626, -34.1751, 39.4387}, 1.2644},
		{[3]float64{22.7233, 20.0904, -46.6940}, [3]float64{23.0331, 14.9730, -42.5619}, 2.0373},
	} {
		if got := ciede2000(tt.a, tt.b); math.Abs(got-tt.want) > 1e-3 {
			t.Errorf("ciede2000(%v, %v) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
	}
}
