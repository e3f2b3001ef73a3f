package sources

import (
	"bytes"
	"regexp"
)

// gcloudYAMLKey matches a top-level key of a LogEntry as gcloud prints it
// by default, in YAML.
var gcloudYAMLKey = regexp.MustCompile(`^(insertId|logName|httpRequest|jsonPayload|textPayload|protoPayload|receiveTimestamp|resource|severity):`)

// NearMiss recognises gcloud's default YAML output, and JSON with a
// LogEntry's httpRequest but no insertId or logName.
func (gcpLogging) NearMiss(s *nearSample) (nearScore, string) {
	for _, l := range s.lines {
		if gcloudYAMLKey.Match(l) {
			return nearKnown, "gcloud's default YAML output (`gcloud logging read` without --format=json)"
		}
	}
	if elem := s.jsonElem(); elem != nil && bytes.Contains(elem, []byte(`"httpRequest"`)) {
		return nearShape, "a JSON object with an httpRequest but no insertId or logName: not a whole Cloud Logging entry"
	}
	return nearNone, ""
}
