package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Stamped at release by the linker (scripts/release):
//
//	-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>
//
// Left empty, they are read from the build information Go records in
// every binary (the module version `go install` resolved, the VCS
// revision and time of a build from a checkout).
var (
	version string
	commit  string
	date    string
)

// unknownValue is what the version says of a part no build step recorded.
const unknownValue = "unknown"

// buildVersion is what `readygap version` prints.
type buildVersion struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// Date is when the binary was built; only a release stamps it.
	Date string `json:"date"`
	// CommitDate is the commit's time, from the VCS information Go records
	// in a build from a checkout.
	CommitDate string `json:"commit_date,omitempty"`
	// Modified is set for a build from a checkout with uncommitted changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// currentVersion assembles the version from the linker's stamps, else the
// build information; a part neither records is "unknown", never guessed.
func currentVersion() buildVersion {
	v := buildVersion{Version: version, Commit: commit, Date: date,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		v = fromBuildInfo(v, info)
	}
	for _, s := range []*string{&v.Version, &v.Commit, &v.Date} {
		if *s == "" {
			*s = unknownValue
		}
	}
	return v
}

// fromBuildInfo fills what v lacks from info: the main module's version
// ("(devel)" is no version) and the vcs.* settings.
func fromBuildInfo(v buildVersion, info *debug.BuildInfo) buildVersion {
	if v.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v.Version = info.Main.Version
	}
	if info.GoVersion != "" {
		v.GoVersion = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit = s.Value
			}
		case "vcs.time":
			v.CommitDate = s.Value
		case "vcs.modified":
			v.Modified = v.Modified || s.Value == "true"
		}
	}
	return v
}

// String is the version in one line, as `--version` prints it.
func (v buildVersion) String() string {
	c := v.Commit
	if v.Modified {
		c += ", modified"
	}
	if v.CommitDate != "" {
		c += " of " + v.CommitDate
	}
	return fmt.Sprintf("readygap %s (commit %s, built %s, %s %s)", v.Version, c, v.Date, v.GoVersion, v.Platform)
}

// newVersionCmd prints the version, commit and build date, as text or JSON.
func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Example: `  readygap version
  readygap version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := currentVersion()
			switch output {
			case "text":
				_, err := fmt.Fprintln(cmd.OutOrStdout(), v.String())
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			return usageError(errors.New(`--output must be one of text, json`))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// versionTemplate makes `--version` print the same line as `version`.
const versionTemplate = `{{printf "%s\n" .Version}}`

// setVersion gives root its --version flag.
func setVersion(root *cobra.Command) {
	root.Version = currentVersion().String()
	root.SetVersionTemplate(versionTemplate)
}
