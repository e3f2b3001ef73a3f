package report

import (
	"strings"

	"github.com/readygap/readygap/internal/words"
)

// coverageLine words one kind's coverage for the summary: "request logs",
// "2 files · 508 records · 00:56:30 – 00:58:04" (dates too when the times
// span days); "none read" for a kind no input held.
func coverageLine(c Coverage) (kind, what string) {
	if c.Files == 0 {
		return c.Name, "none read"
	}
	what = words.Plural(c.Files, "file") + " · " + words.Plural(c.Records, "record")
	switch {
	case c.First.IsZero():
	case words.SameDay(c.First, c.Last):
		what += " · " + clockOf(c.First) + " – " + clockOf(c.Last)
	default:
		what += " · " + shortTime(c.First) + " – " + shortTime(c.Last)
	}
	return c.Name, what
}

// unreadLine words the inputs not read for the summary; "" when none.
func unreadLine(rep *Report) string {
	if len(rep.Unread) == 0 {
		return ""
	}
	var named []string
	for _, u := range rep.Unread {
		named = append(named, u.Name+": "+u.Reason)
	}
	return words.Plural(len(rep.Unread), "file") + " · " + strings.Join(named, "; ")
}

// headline is the report's first line in two parts, the verdict and what
// follows it: "No incident:", "Cannot judge:", "2 incidents:".
func headline(rep *Report) (verdict, rest string) {
	s := rep.Summary
	incidents := ""
	if n := len(rep.Incidents); n > 0 {
		incidents = words.Plural(n, "incident") + ": " + failedText(s.FailedRequests, s.LoggedFailedRequests, s.HiddenFailures, "")
	}
	switch {
	case s.Verdict == VerdictCannotJudge:
		rest = s.CannotJudge
		if incidents != "" {
			rest += "; found in what was read: " + incidents
		}
		return "Cannot judge:", rest
	case incidents != "":
		return words.Plural(len(rep.Incidents), "incident") + ":", failedText(s.FailedRequests, s.LoggedFailedRequests, s.HiddenFailures, "")
	}
	return "No incident:", "the load balancer and proxy generated no run of errors."
}
