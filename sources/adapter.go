package sources

import (
	"fmt"
	"io"
	"time"
)

// Options tune how inputs are read.
type Options struct {
	// Since and Until keep only records whose time falls in [Since, Until).
	// A zero value leaves that side open. Configuration facts have no time and
	// are always kept.
	Since, Until time.Time
	// TZ is the time zone of log times written without one (nginx error log,
	// klog). Nil means UTC.
	TZ *time.Location
	// Workers bounds how many inputs are read at once; 0 means GOMAXPROCS.
	Workers int
	// MaxWarnings bounds the warnings kept per input; 0 means 5.
	MaxWarnings int
	// Stdin is read for the input "-"; nil means os.Stdin.
	Stdin io.Reader
	// EnvoyFormat is the access-log format of Envoy inputs written in a
	// format other than the defaults readygap knows: an Envoy format string
	// (`[%START_TIME%] "%REQ(:METHOD)% ..." %RESPONSE_CODE% %RESPONSE_FLAGS% ...`)
	// or a JSON format dictionary (`{"ts":"%START_TIME%","status":"%RESPONSE_CODE%",...}`).
	// Lines in the default formats are still read. Empty means the defaults only.
	EnvoyFormat string
	// NginxFormat is the access-log format of ingress-nginx inputs written
	// in a custom `log-format-upstream` (or of nginx with the upstream
	// variables added): the log_format string or JSON template as
	// configured. Lines in ingress-nginx's default format are still read.
	// Empty means the default format and JSON lines recognised by their keys.
	NginxFormat string
	// TableNow is when the kubectl tables among the inputs were printed
	// (--now): their ages count back from it. Zero means inferred from an
	// absolute time in the table, else the time of reading (order only).
	// Envoy lines pasted without their time count on from it too.
	TableNow time.Time
	// ReadAt is the time of reading, which order-only table ages count
	// back from and order-only requests on from; zero means time.Now().
	ReadAt time.Time
	// Early, when set, has read some of the inputs already (see Early):
	// Read takes their reports, and reads with Early's options.
	Early *Early

	// envoy is EnvoyFormat compiled by prepare; nil without one.
	envoy *envoyCustom
	// nginx is NginxFormat compiled by prepare; nil without one.
	nginx *nginxCustom
}

// CheckEnvoyFormat reports what is wrong with an Envoy access-log format
// (Options.EnvoyFormat) before anything is read, so that a command can
// refuse it as a mistake in its command line; nil for a format Read
// accepts, and for "" (the defaults).
func CheckEnvoyFormat(format string) error {
	if format == "" {
		return nil
	}
	_, err := compileEnvoyCustom(format)
	return err
}

// prepare checks and compiles the options that need it; Read calls it
// before reading anything.
func (o *Options) prepare() error {
	if o.NginxFormat != "" {
		c, err := compileNginxCustom(o.NginxFormat)
		if err != nil {
			return fmt.Errorf("nginx access-log format: %w", err)
		}
		o.nginx = c
	}
	if o.EnvoyFormat == "" {
		return nil
	}
	c, err := compileEnvoyCustom(o.EnvoyFormat)
	if err != nil {
		return fmt.Errorf("Envoy access-log format: %w", err)
	}
	o.envoy = c
	return nil
}

// lineAdapterSet returns the line adapters detection tries, in the table's
// order: with an Envoy or nginx format, the adapters that read it.
func (o *Options) lineAdapterSet() []lineAdapter {
	if o == nil || o.envoy == nil && o.nginx == nil {
		return lineAdapters
	}
	set := make([]lineAdapter, len(lineAdapters))
	for i, a := range lineAdapters {
		switch {
		case o.envoy != nil && a.Format() == FormatEnvoyAccess && o.envoy.text != nil:
			a = newEnvoyText(o.envoy.text)
		case o.envoy != nil && a.Format() == FormatEnvoyJSON && o.envoy.json != nil:
			a = envoyJSON{custom: o.envoy.json}
		case o.nginx != nil && a.Format() == FormatIngressNginx && o.nginx.text != nil:
			a = ingressNginx{custom: o.nginx.text}
		case o.nginx != nil && a.Format() == FormatIngressNginxJSON && o.nginx.json != nil:
			a = ingressNginxJSON{custom: o.nginx.json}
		}
		set[i] = a
	}
	return set
}

func (o *Options) location() *time.Location {
	if o == nil || o.TZ == nil {
		return time.UTC
	}
	return o.TZ
}

// Line is the context of one text line handed to a lineAdapter.
type Line struct {
	Origin Origin
	// Stamp is the time a wrapper put in front of the line (kubectl logs
	// --timestamps, the CRI log prefix, a CloudWatch event timestamp); zero
	// when the line came bare. Formats whose own times lack a year or zone use it.
	Stamp time.Time
}

// lineAdapter reads a format whose records are single text lines. The
// pipeline strips wrappers (CloudWatch export, Fluent Bit JSON, CRI and
// kubectl timestamp prefixes) before a line reaches it.
type lineAdapter interface {
	Format() Format
	// Match reports whether an unwrapped line looks like a record of this
	// format. It is used on a sample of lines to detect a file's format and
	// must be cheap and free of side effects.
	Match(line []byte) bool
	// Parse parses one unwrapped line and reports its records to out. It
	// returns a non-nil error, whose text is the reason, when the line is
	// malformed. Lines that are valid but carry no record return nil.
	Parse(line []byte, ln *Line, out *Emitter) error
}

// jsonAdapter reads a format made of JSON values: gcloud arrays, API list
// responses, Kubernetes Lists, single objects, or one object per line. The
// pipeline splits the input into elements (the items of a List, the entries
// of an API response, the values of an array) before they reach it; YAML is
// converted to JSON first.
type jsonAdapter interface {
	Format() Format
	// MatchJSON reports whether elem, the start of one JSON element (it may be
	// cut short), looks like a record of this format. It must be cheap.
	MatchJSON(elem []byte) bool
	// ParseJSON parses one complete JSON element starting at origin o and
	// reports its records to out. It returns a non-nil error, whose text is the
	// reason, when the element is malformed or in another format (the pipeline
	// then tries the other adapters). Elements of its format that carry no
	// record return nil.
	ParseJSON(elem []byte, o Origin, out *Emitter) error
}
