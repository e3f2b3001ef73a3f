package sources

import (
	"bytes"
	"time"
)

// kubectlPrefix takes off the prefix `kubectl logs --prefix` puts in front
// of each line: `[pod/NAME/CONTAINER] ` (kubectl's addPrefixIfNeeded,
// `fmt.Sprintf("[pod/%s/%s] ", name, container)`; no namespace). With
// `--timestamps` the kubelet's time follows the prefix and is taken off by
// unwrapLine, as for a bare `kubectl logs --timestamps` line.
type kubectlPrefix struct{}

// kubectlPrefixStart is how every prefixed line starts: kubectl prefixes
// only pods.
var kubectlPrefixStart = []byte("[pod/")

// Unwrap returns what follows the prefix. A prefix with nothing after it
// (an empty line) gives an empty line.
func (kubectlPrefix) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if !bytes.HasPrefix(line, kubectlPrefixStart) {
		return nil, time.Time{}, scratch, false
	}
	rest := line[len(kubectlPrefixStart):]
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return nil, time.Time{}, scratch, false
	}
	pod, container, ok := bytes.Cut(rest[:end], []byte("/"))
	if !ok || !isName(pod) || !isName(container) {
		return nil, time.Time{}, scratch, false
	}
	rest = rest[end+1:]
	switch {
	case len(rest) == 0:
		return rest, time.Time{}, scratch, true
	case rest[0] == ' ':
		return rest[1:], time.Time{}, scratch, true
	}
	return nil, time.Time{}, scratch, false
}
