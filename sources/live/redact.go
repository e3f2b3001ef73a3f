package live

import (
	"regexp"
)

// redactedMark replaces what redaction removes.
const redactedMark = "[redacted]"

// Redaction kinds counted in a bundle.FetchReport's Redacted map.
const (
	redactedErrorText   = "credentials in error text"
	redactedEnvValues   = "container env values"
	redactedArgs        = "credentials in container command lines"
	redactedLastApplied = "last-applied-configuration annotations"
	redactedSecretData  = "Secret data"
)

// redactRules rewrite credential-shaped parts of untrusted text (a
// server's error message) in order. Each keeps what a person needs to
// act (the host, the parameter's name) and drops the value.
var redactRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	// User info and query of any URL: presigned URLs carry X-Amz-Signature,
	// X-Amz-Credential and X-Amz-Security-Token there, GCS signed URLs
	// X-Goog-Signature, SAS URLs sig=.
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s"'<>@]*@`), "${1}" + redactedMark + "@"},
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>?]*)\?[^\s"'<>]*`), "${1}?" + redactedMark},
	// Authorization headers (scheme and credentials), then bearer and
	// basic credentials elsewhere.
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[=:]\s*"?)(?:[a-z0-9-]+\s+)?[^\s"',;]+(\s*,\s*[a-z]+=[^\s"',;]+)*`), "${1}" + redactedMark},
	{regexp.MustCompile(`(?i)\b(bearer|basic|negotiate)\s+[A-Za-z0-9._~+/=-]{8,}`), "${1} " + redactedMark},
	// name=value or name: value pairs whose name says secret.
	{regexp.MustCompile(`(?i)((?:x-amz-|x-goog-)?(?:signature|credential|security-token|session-token|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|secret[_-]?access[_-]?key|secret|password|passwd|api[_-]?key|apikey|token|sig|private[_-]?key)"?\s*[=:]\s*"?)[^\s"&,;<>]+`), "${1}" + redactedMark},
	// AWS access key ids, Google OAuth access tokens, GitHub tokens, JSON
	// Web Tokens, PEM private keys.
	{regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{12,}\b`), redactedMark},
	{regexp.MustCompile(`\bya29\.[A-Za-z0-9._-]+`), redactedMark},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}`), redactedMark},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), redactedMark},
	{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`), redactedMark},
	// Anything else credential-shaped: 40 or more characters of the base64
	// alphabet (an AWS secret key is 40, a session token hundreds) that
	// look random (see randomToken). Names, ARNs, paths and request ids
	// stay.
	{regexp.MustCompile(`[A-Za-z0-9+/=]{40,}`), ""},
}

// Redact returns s with query strings, signatures, tokens and anything
// credential-shaped replaced by "[redacted]", and how many parts it
// replaced. It is applied to every text a server sent (error messages)
// before it is printed or saved.
func Redact(s string) (string, int) {
	n := 0
	for _, r := range redactRules {
		if r.repl == "" {
			s = r.re.ReplaceAllStringFunc(s, func(m string) string {
				if !randomToken(m) {
					return m
				}
				n++
				return redactedMark
			})
			continue
		}
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			out := r.re.ReplaceAllString(m, r.repl)
			if out != m {
				n++
			}
			return out
		})
	}
	return s, n
}

// randomTokenSwitches is the share of neighbouring characters of
// different classes (upper case, lower case, digit, other) from which a
// string looks random: about 0.6 for random base64, under 0.2 for paths
// and words (measured on the tests' object keys and ARNs).
const randomTokenSwitches = 0.25

// randomToken reports whether s mixes upper case, lower case and digits
// and switches between them as often as random characters do.
func randomToken(s string) bool {
	class := func(c byte) int {
		switch {
		case c >= 'A' && c <= 'Z':
			return 0
		case c >= 'a' && c <= 'z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	var seen [4]bool
	switches := 0
	for i := 0; i < len(s); i++ {
		seen[class(s[i])] = true
		if i > 0 && class(s[i]) != class(s[i-1]) {
			switches++
		}
	}
	return seen[0] && seen[1] && seen[2] && float64(switches) >= randomTokenSwitches*float64(len(s)-1)
}

// lastAppliedAnnotation is where kubectl apply keeps the whole manifest it
// applied, env values and all.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// redactKubeObject removes from a Kubernetes object what must never reach
// a bundle: the value of every container env variable (names and
// valueFrom references stay), credential-shaped command-line arguments,
// the last-applied-configuration annotation and the data of a Secret. It
// counts what it removed into counts.
func redactKubeObject(obj map[string]any, counts map[string]int) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if _, ok := ann[lastAppliedAnnotation]; ok {
				delete(ann, lastAppliedAnnotation)
				counts[redactedLastApplied]++
			}
		}
	}
	if obj["kind"] == "Secret" {
		for _, k := range []string{"data", "stringData"} {
			if _, ok := obj[k]; ok {
				delete(obj, k)
				counts[redactedSecretData]++
			}
		}
	}
	redactContainers(obj, counts)
}

// redactContainers walks v for container lists (a Pod's spec, a
// template's) and clears env values and credential-shaped arguments.
func redactContainers(v any, counts map[string]int) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			switch k {
			case "containers", "initContainers", "ephemeralContainers":
				if list, ok := child.([]any); ok {
					for _, c := range list {
						if cm, ok := c.(map[string]any); ok {
							redactContainer(cm, counts)
						}
					}
					continue
				}
			}
			redactContainers(child, counts)
		}
	case []any:
		for _, child := range x {
			redactContainers(child, counts)
		}
	}
}

// redactContainer clears one container's env values and credential-shaped
// command-line arguments.
func redactContainer(c map[string]any, counts map[string]int) {
	if env, ok := c["env"].([]any); ok {
		for _, e := range env {
			if em, ok := e.(map[string]any); ok {
				if _, ok := em["value"]; ok {
					em["value"] = redactedMark
					counts[redactedEnvValues]++
				}
			}
		}
	}
	for _, k := range []string{"command", "args"} {
		list, ok := c[k].([]any)
		if !ok {
			continue
		}
		for i, a := range list {
			if s, ok := a.(string); ok {
				if r, n := Redact(s); n > 0 {
					list[i] = r
					counts[redactedArgs] += n
				}
			}
		}
	}
}
