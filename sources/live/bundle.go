// Package live fetches an incident window straight from where the data lives
// — Cloud Logging, S3 (ALB access logs), CloudWatch Logs and the Kubernetes
// API — and writes it into a bundle directory in the formats users export
// (`gcloud logging read --format=json`, the ALB objects as stored, `aws logs
// filter-log-events --output json`, `kubectl get -o json`), so that the
// offline analysis reads a bundle exactly as it reads exported files.
package live

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

// BundleSchema names the layout of a bundle directory and of its manifest.
const BundleSchema = "readygap-bundle/v1"

// ManifestName is the name of a bundle's manifest file. It is JSON in no
// format that sources.Read knows, so analyzing a bundle skips it with a warning;
// sources.Read skips hidden files, hence the leading dot.
const ManifestName = ".bundle.json"

// Window is the time range a live fetch asks for: [Since, Until), in UTC.
type Window struct {
	Since, Until time.Time
}

// String renders the window for progress lines and manifests.
func (w Window) String() string {
	return w.Since.UTC().Format(time.RFC3339) + " to " + w.Until.UTC().Format(time.RFC3339)
}

// FetchReport describes what one live source wrote into a bundle. It never
// holds credentials, tokens or signed URLs: only what was asked for and how
// much came back.
type FetchReport struct {
	// Source names the live source: gcp-logging, s3-alb, cloudwatch-logs, kubernetes.
	Source string `json:"source"`
	// Queries lists the filters, prefixes and listings sent, as a user would
	// retype them (a Cloud Logging filter, an s3:// prefix, a log group and
	// its filter pattern, a Kubernetes list).
	Queries []string `json:"queries"`
	// Files lists the files written, relative to the bundle directory.
	Files []string `json:"files"`
	// Records counts the log entries, events or objects fetched; for S3 it
	// counts the objects, whose lines are read later.
	Records int `json:"records"`
	// Bytes counts the bytes written.
	Bytes int64 `json:"bytes"`
	// Notes are one-line remarks: a window with no data, an optional resource
	// that is not installed in the cluster.
	Notes []string `json:"notes,omitempty"`
}

// Manifest is the content of a bundle's ManifestName file: what was fetched
// and for which window.
type Manifest struct {
	Schema  string        `json:"schema"`
	Created time.Time     `json:"created"`
	Since   time.Time     `json:"since"`
	Until   time.Time     `json:"until"`
	Sources []FetchReport `json:"sources"`
	// Errors lists the one-line errors of sources that failed.
	Errors []string `json:"errors,omitempty"`
}

// WriteManifest writes m into the bundle directory dir.
func WriteManifest(dir string, m *Manifest) error {
	m.Schema = BundleSchema
	sort.Slice(m.Sources, func(i, j int) bool { return m.Sources[i].Source < m.Sources[j].Source })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}

// Progress receives the running totals of one source while it fetches.
// Calls are never concurrent, but may come from different goroutines.
type Progress func(source string, records int, bytes int64)

// FetchError is an error a user can act on, worded as one line that names
// the source and, for a denied request, the permission that is missing.
type FetchError struct {
	Source string
	Msg    string
	Err    error
}

// Error implements error.
func (e *FetchError) Error() string { return e.Source + ": " + e.Msg }

// Unwrap returns the underlying error.
func (e *FetchError) Unwrap() error { return e.Err }

// fetchErrorf builds a FetchError.
func fetchErrorf(source string, err error, format string, args ...any) *FetchError {
	return &FetchError{Source: source, Msg: fmt.Sprintf(format, args...), Err: err}
}

// bundleFile is a file being written into a bundle: buffered, counting bytes.
type bundleFile struct {
	f   *os.File
	w   *bufio.Writer
	n   int64
	rel string
}

// createBundleFile creates rel (slash-separated) under dir, with its parents.
func createBundleFile(dir, rel string) (*bundleFile, error) {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &bundleFile{f: f, w: bufio.NewWriterSize(f, 256<<10), rel: rel}, nil
}

// Write implements io.Writer.
func (b *bundleFile) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	b.n += int64(n)
	return n, err
}

// WriteString writes s.
func (b *bundleFile) WriteString(s string) (int, error) { return b.Write([]byte(s)) }

// Close flushes and closes the file.
func (b *bundleFile) Close() error {
	ferr := b.w.Flush()
	if err := b.f.Close(); ferr == nil {
		ferr = err
	}
	return ferr
}

// Remove closes and deletes a file whose fetch failed.
func (b *bundleFile) Remove() {
	b.f.Close()
	os.Remove(b.f.Name())
}

// awsError words an error of an AWS API call as a FetchError: missing or
// rejected credentials, a denied action (naming the IAM action and the
// resource), a missing bucket or log group. Other errors keep their text.
func awsError(source, action, resource string, err error) *FetchError {
	// The SDK resolves credentials before signing and reports a failure as
	// "get identity: get credentials: ..." without a type of its own.
	var se *v4.SigningError
	if errors.As(err, &se) || strings.Contains(err.Error(), "get identity: get credentials:") {
		return fetchErrorf(source, err, "no AWS credentials: set --profile or AWS_PROFILE, run `aws sso login`, or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "AccessDenied", "AccessDeniedException", "Forbidden", "AllAccessDisabled":
			return fetchErrorf(source, err, "permission denied: the credentials need %s on %s", action, resource)
		case "NoSuchBucket":
			return fetchErrorf(source, err, "bucket not found: %s", resource)
		case "ResourceNotFoundException":
			return fetchErrorf(source, err, "not found: %s", resource)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "UnrecognizedClientException", "InvalidClientTokenId":
			return fetchErrorf(source, err, "credentials rejected (%s): check --profile and the keys in the environment", ae.ErrorCode())
		case "ExpiredToken", "ExpiredTokenException", "TokenRefreshRequired":
			return fetchErrorf(source, err, "credentials expired: refresh them (`aws sso login`) and retry")
		}
		return fetchErrorf(source, err, "%s on %s failed: %s: %s", action, resource, ae.ErrorCode(), ae.ErrorMessage())
	}
	return fetchErrorf(source, err, "%s on %s failed: %v", action, resource, err)
}
