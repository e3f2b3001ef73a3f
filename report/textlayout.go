package report

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// tableGap is the space between table columns; tableIndent the margin.
const (
	tableGap    = 2
	tableIndent = 2
)

// table lays out rows whose second column (what happened) wraps and whose
// other columns are identifiers, kept whole.
func (t *textOut) table(headers []string, rows [][]string) { t.tableFlex(headers, rows, 1) }

// tableWhole lays out rows whose cells, all kept whole, say what they are:
// there is no header row.
func (t *textOut) tableWhole(rows [][]string) { t.tableFlex(nil, rows, -1) }

// tableFlex lays out a table in which column flex (none when -1) wraps at
// spaces and every other cell is kept whole. When the whole cells leave
// the wrapped one less than minFlexWidth, each row is stacked instead: the
// cells before the wrapped one and the wrapped text on the first lines, the
// cells after it on a line of their own.
func (t *textOut) tableFlex(headers []string, rows [][]string, flex int) {
	ncols := len(headers)
	if ncols == 0 && len(rows) > 0 {
		ncols = len(rows[0])
	}
	widths := make([]int, ncols)
	for c := range widths {
		if headers != nil {
			widths[c] = lipgloss.Width(headers[c])
		}
		for _, r := range rows {
			widths[c] = max(widths[c], lipgloss.Width(r[c]))
		}
	}
	fixed := tableIndent + tableGap*(ncols-1)
	for c, w := range widths {
		if c != flex {
			fixed += w
		}
	}
	if flex >= 0 {
		if avail := t.width - fixed; avail >= min(minFlexWidth, widths[flex]) {
			widths[flex] = min(widths[flex], avail)
			t.gridRows(headers, rows, widths, flex)
			return
		}
	} else if fixed <= t.width {
		t.gridRows(headers, rows, widths, flex)
		return
	}
	t.stackedRows(rows, widths, flex)
}

// gridRows writes a header and rows in columns of the given widths, the
// flex column wrapped.
func (t *textOut) gridRows(headers []string, rows [][]string, widths []int, flex int) {
	write := func(cells []string, style func(string) string) {
		var wrapped []string
		if flex >= 0 {
			wrapped = strings.Split(wrapIndent(cells[flex], widths[flex], ""), "\n")
		}
		lines := max(len(wrapped), 1)
		for k := 0; k < lines; k++ {
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", tableIndent))
			for c := range cells {
				cell := ""
				switch {
				case c == flex && k < len(wrapped):
					cell = wrapped[k]
				case c != flex && k == 0:
					cell = cells[c]
				}
				if c < len(cells)-1 {
					cell = padRight(cell, widths[c]+tableGap)
				}
				b.WriteString(cell)
			}
			t.line(style(strings.TrimRight(b.String(), " ")))
		}
	}
	if headers != nil {
		write(headers, func(s string) string { return headingStyle.Render(s) })
	}
	for _, r := range rows {
		write(r, func(s string) string { return s })
	}
}

// stackedRows writes each row without columns: the cells before the flex
// column, then the flex text wrapped beside them when they are short or
// below them when not, then the remaining cells at the end of the last line
// when they fit there, else on a line of their own.
func (t *textOut) stackedRows(rows [][]string, widths []int, flex int) {
	for _, r := range rows {
		before, text, after := r[:1], "", r[1:]
		if flex >= 0 {
			before, text, after = r[:flex], r[flex], r[flex+1:]
		}
		var head strings.Builder
		head.WriteString(strings.Repeat(" ", tableIndent))
		for c, cell := range before {
			head.WriteString(padRight(cell, widths[c]) + strings.Repeat(" ", tableGap))
		}
		var rest []string
		for _, cell := range after {
			if cell != "" {
				rest = append(rest, cell)
			}
		}
		indent := strings.Repeat(" ", tableIndent+tableGap)
		h := head.String()
		switch {
		case text == "":
			t.line(strings.TrimRight(h, " "))
		case lipgloss.Width(h) <= t.width/3:
			t.flow(h, text, rest)
			continue
		default:
			t.line(strings.TrimRight(h, " "))
			t.flow(indent, text, rest)
			continue
		}
		if len(rest) > 0 {
			t.flow(indent, "", rest)
		}
	}
}

// flowSep separates a text from the identifiers after it, and them from
// each other.
const flowSep = " · "

// flow writes head and text wrapped with a hanging indent, then the
// identifiers in tail, each kept whole: at the end of the last line when
// they fit there, else on lines of their own, as many on one as fit.
func (t *textOut) flow(head, text string, tail []string) {
	indent := strings.Repeat(" ", lipgloss.Width(head))
	lines := []string{head}
	if text != "" {
		lines = strings.Split(hanging(head, text, indent, t.width), "\n")
	}
	if len(tail) > 0 {
		cur := lines[len(lines)-1]
		sep := flowSep
		if strings.TrimSpace(cur) == "" {
			sep = ""
		}
		for _, id := range tail {
			if lipgloss.Width(cur)+len(sep)+lipgloss.Width(id) > t.width && strings.TrimSpace(cur) != "" {
				lines[len(lines)-1] = cur
				lines = append(lines, indent)
				cur, sep = indent, ""
			}
			cur += sep + dimStyle.Render(id)
			sep = flowSep
		}
		lines[len(lines)-1] = cur
	}
	t.line(strings.Join(lines, "\n"))
}

// hanging writes head followed by text wrapped to width at spaces, the
// continuation lines prefixed with indent. Words longer than a line stay
// whole.
func hanging(head, text, indent string, width int) string {
	first := width - cellWidth(head)
	rest := width - cellWidth(indent)
	var b strings.Builder
	b.WriteString(head)
	col, limit := 0, first
	for i, word := range strings.Fields(text) {
		wl := cellWidth(word)
		if i > 0 {
			if col+1+wl > limit {
				b.WriteString("\n" + indent)
				col, limit = 0, rest
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(word)
		col += wl
	}
	return strings.TrimRight(b.String(), " ")
}

// cellWidth is the number of terminal cells s takes: its length when it is
// printable ASCII (most words of a report, measured one by one), else what
// lipgloss measures, escape sequences and wide characters included.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return lipgloss.Width(s)
		}
	}
	return len(s)
}

// hangingItems writes head followed by items joined by sep and a space
// ("a, b"), wrapped to width between items only, so that each stays whole
// on one line; a line ends with sep. Continuation lines are prefixed with
// indent.
func hangingItems(head string, items []string, sep, indent string, width int) string {
	var b strings.Builder
	b.WriteString(head)
	col, limit := 0, width-lipgloss.Width(head)
	for i, it := range items {
		if i < len(items)-1 {
			it += sep
		}
		w := lipgloss.Width(it)
		if i > 0 {
			if col+1+w > limit {
				b.WriteString("\n" + indent)
				col, limit = 0, width-lipgloss.Width(indent)
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(it)
		col += w
	}
	return b.String()
}

// wrapIndent breaks s at spaces so that no line exceeds width (longer words
// stay whole) and prefixes continuation lines with indent.
func wrapIndent(s string, width int, indent string) string { return hanging("", s, indent, width) }

// Shortening file names: a prefix is named once when it is at least
// aliasMinPrefix long and the names it shortens are longer than
// aliasMinName.
const (
	aliasMinPrefix = 24
	aliasMinName   = 40
)

// sourceNames shortens input names and file:line references by two rules
// the report states once: names are relative to the directory every input
// shares, and a long prefix shared by the names of one directory (ALB log
// objects repeat their account, region and load balancer in every name) is
// written as a mark.
type sourceNames struct {
	dir     string
	aliases []sourceAlias
}

// sourceAlias is one shortened prefix.
type sourceAlias struct{ mark, prefix string }

// newSourceNames finds the shortening rules for the input names.
func newSourceNames(inputs []Input) *sourceNames {
	n := &sourceNames{dir: commonDir(inputs)}
	groups := map[string][]string{}
	for _, in := range inputs {
		name := strings.TrimPrefix(in.Name, n.dir)
		if len(name) <= aliasMinName {
			continue
		}
		dir := name[:strings.LastIndexByte(name, '/')+1]
		groups[dir] = append(groups[dir], name)
	}
	var prefixes []string
	for dir, names := range groups {
		p := dir
		if len(names) > 1 {
			p = boundaryPrefix(names)
		}
		if len(p) >= aliasMinPrefix {
			prefixes = append(prefixes, p)
		}
	}
	sort.Strings(prefixes)
	for i, p := range prefixes {
		mark := "…"
		if len(prefixes) > 1 {
			mark = fmt.Sprintf("…%d", i+1)
		}
		n.aliases = append(n.aliases, sourceAlias{mark: mark, prefix: p})
	}
	return n
}

// boundaryPrefix is the longest prefix all names share that ends at a
// separator ('/', '_', '-' or '.').
func boundaryPrefix(names []string) string {
	p := names[0]
	for _, s := range names[1:] {
		i := 0
		for i < len(p) && i < len(s) && p[i] == s[i] {
			i++
		}
		p = p[:i]
	}
	if i := strings.LastIndexAny(p, "/_-."); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// short shortens a name or file:line by the rules, sanitized.
func (n *sourceNames) short(s string) string {
	s = strings.TrimPrefix(s, n.dir)
	for _, a := range n.aliases {
		if rest, ok := strings.CutPrefix(s, a.prefix); ok {
			return a.mark + Sanitize(rest)
		}
	}
	return Sanitize(s)
}

// legend states the rules for a text of width columns: a prefix longer
// than a line is broken after a '/' or '_'.
func (n *sourceNames) legend(width int) []string {
	var out []string
	for _, a := range n.aliases {
		head := a.mark + " stands for "
		line := head
		for _, seg := range splitAfterAny(Sanitize(a.prefix), "/_") {
			if lipgloss.Width(line)+lipgloss.Width(seg) > width && line != head && strings.TrimSpace(line) != "" {
				out = append(out, line)
				line = strings.Repeat(" ", lipgloss.Width(head))
			}
			line += seg
		}
		out = append(out, line)
	}
	return out
}

// splitAfterAny cuts s after every byte in seps.
func splitAfterAny(s, seps string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// commonDir returns the directory prefix (ending in a separator) that every
// input name shares, so that tables can show shorter names.
func commonDir(inputs []Input) string {
	if len(inputs) == 0 {
		return ""
	}
	prefix := inputs[0].Name
	for _, in := range inputs[1:] {
		for !strings.HasPrefix(in.Name, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexAny(prefix, `/\`); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}
