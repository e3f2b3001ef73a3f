package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 (OASIS), the subset readygap writes: one run, the rules of
// every static check, one result per finding located at its object's
// file and line. GitHub code scanning shows such results on the lines of
// a pull request.
const (
	sarifVersion = "2.1.0"
	// sarifSchemaURI is where the final 2.1.0 schema is published.
	sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// sarifInformationURI is the tool's home, for the driver.
	sarifInformationURI = "https://github.com/readygap/readygap"
	// sarifSrcRoot is the base of relative artifact URIs: the directory
	// the command ran in, which in CI is the repository's root.
	sarifSrcRoot = "%SRCROOT%"
	// sarifFingerprint names readygap's partial fingerprint: the rule and
	// the objects involved, stable when lines move.
	sarifFingerprint = "readygapFinding/v1"
)

// SARIFLog is a check report as a SARIF 2.1.0 log, as code-scanning
// pages read it.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool sarifTool `json:"tool"`
	// Invocations says whether the check read every input, and what it
	// could not judge: the inputs and documents not read (errors), the
	// objects without what they need (warnings), the warnings.
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	// OriginalURIBaseIDs says what %SRCROOT% stands for: nothing absolute,
	// the consumer's checkout.
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
}

type sarifInvocation struct {
	// ExecutionSuccessful is false when an input or document was not read.
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifText          `json:"shortDescription"`
	FullDescription      sarifText          `json:"fullDescription"`
	Help                 sarifText          `json:"help"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

type sarifResultProps struct {
	// Fixes are the changes as readygap words them, the patches as YAML.
	Fixes []Remediation `json:"fixes"`
	// Prediction is the expected failure window now and with the fixes.
	Prediction *CheckPrediction `json:"prediction,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	// Region is nil for a whole file.
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri,omitempty"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// renderSARIF writes the check report as a SARIF 2.1.0 log. The text a
// code-scanning page shows (the message, the object's names) passes through
// Sanitize, since such a page decodes JSON's escapes; the fixes keep the
// inputs' text, escaped as in every JSON document (writeIndentedJSON).
func renderSARIF(w io.Writer, rep *CheckReport) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "readygap", InformationURI: sarifInformationURI}}, Results: []sarifResult{}}
	index := map[string]int{}
	// The rules' texts come from the report, which may have been saved and
	// edited: they pass through Sanitize like every other text.
	for i, rc := range rep.Checks {
		index[rc.Rule] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   Sanitize(rc.Rule),
			Name:                 Sanitize(sarifRuleName(rc.Rule)),
			ShortDescription:     sarifText{Sanitize(rc.Name)},
			FullDescription:      sarifText{Sanitize(rc.Description)},
			Help:                 sarifText{Sanitize(rc.CauseName + ": " + rc.CauseDescription + ". This check: " + rc.Description + ".")},
			DefaultConfiguration: sarifConfiguration{Level: "error"},
			Properties:           sarifRuleProps{Tags: []string{"kubernetes", "reliability", Sanitize(rc.Cause)}},
		})
	}
	relative := false
	for _, f := range rep.Findings {
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: f.Severity,
			Message:             sarifText{Sanitize(sarifMessage(f))},
			PartialFingerprints: map[string]string{sarifFingerprint: findingFingerprint(f)},
			Properties:          sarifResultProps{Fixes: f.Fixes, Prediction: f.Prediction},
		}
		loc := sarifLocation{LogicalLocations: []sarifLogicalLocation{{
			Name: Sanitize(f.Object.Name), FullyQualifiedName: Sanitize(f.Object.String()), Kind: "object"}}}
		if f.Object.File != "" {
			uri, base := sarifURI(f.Object.File)
			relative = relative || base != ""
			loc.PhysicalLocation = &sarifPhysicalLocation{
				ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: base},
				Region:           &sarifRegion{StartLine: max(f.Object.Line, 1)},
			}
		}
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
	}
	inv := sarifInvocation{ExecutionSuccessful: rep.Summary.Unreadable == 0}
	for _, n := range rep.NotJudged {
		note := sarifNotification{Level: n.Severity, Message: sarifText{n.Reason}}
		if n.File != "" && n.File != "<stdin>" {
			uri, base := sarifURI(n.File)
			relative = relative || base != ""
			loc := sarifLocation{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: base}}}
			if n.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: n.Line}
			}
			if n.Object != nil {
				loc.LogicalLocations = []sarifLogicalLocation{{Name: n.Object.Name, FullyQualifiedName: n.Object.String(), Kind: "object"}}
			}
			note.Locations = []sarifLocation{loc}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, note)
	}
	for _, w := range rep.Warnings {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning", Message: sarifText{w}})
	}
	run.Invocations = []sarifInvocation{inv}
	if relative {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{sarifSrcRoot: {}}
	}
	return writeIndentedJSON(w, SARIFLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifRuleName is a rule's name in the PascalCase SARIF consumers show:
// "registration_lag/min-ready-seconds" → "RegistrationLagMinReadySeconds".
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '_' || r == '-' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// sarifMessage is a result's text: the title, the reason, the first fix
// and the predicted failure window.
func sarifMessage(f CheckFinding) string {
	msg := f.Title + ". " + f.Reason
	if len(f.Fixes) > 0 {
		msg += " Fix: " + f.Fixes[0].Title + "."
	}
	if f.Prediction != nil {
		msg += " Predicted: " + f.Prediction.Summary + "."
	}
	return msg
}

// sarifURI turns a file name into an artifact URI: a relative one,
// percent-encoded segment by segment and based on %SRCROOT%, or a file://
// URI for an absolute name.
func sarifURI(name string) (uri, base string) {
	slashed := filepath.ToSlash(name)
	segs := strings.Split(strings.TrimPrefix(slashed, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	if filepath.IsAbs(name) {
		return "file:///" + strings.Join(segs, "/"), ""
	}
	return strings.TrimPrefix(strings.Join(segs, "/"), "./"), sarifSrcRoot
}

// findingFingerprint identifies a finding across runs by its rule and the
// objects it names, not their lines.
func findingFingerprint(f CheckFinding) string {
	key := f.Rule + "\x00" + f.Workload.String() + "\x00" + f.Object.String()
	if f.Via != nil {
		key += "\x00" + f.Via.String()
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}
