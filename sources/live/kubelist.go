package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/readygap/readygap/internal/words"
)

// What the Kubernetes source reads from an API server is bounded whatever
// the server sends, so that memory follows what is kept: a list is read as
// a stream, item by item, each item bounded (kubeMaxItemBytes), and a list
// stops after kubeMaxListItems items, however the server pages it; any
// other answer is bounded as a whole (kubeMaxAnswerBytes, kubeMaxErrorBytes).
const (
	// kubeMaxItemBytes bounds one object of a list as JSON. The API server
	// stores no object larger than etcd's request limit, 1.5 MiB by default
	// (--max-request-bytes), protobuf-encoded for built-in kinds; the bound
	// allows its JSON twice that (an assumption: JSON spells out the field
	// names protobuf numbers). Decoded, such an item takes a few times its
	// size while it is written.
	kubeMaxItemBytes = 3 << 20
	// kubeMaxListItems bounds the items read from one list, over all its
	// pages: five times the 200 000 events of the largest namespace
	// measured (the README's speed section). A server that ignores limit
	// and continue, or pages without end, is stopped there with a warning.
	kubeMaxListItems = 1_000_000
	// kubeMaxAnswerBytes bounds an answer client-go reads whole (a Get, a
	// page of the proxy source's lists): a page of kubeListLimit objects of
	// 30 KB, far above what pods and events take.
	kubeMaxAnswerBytes = 16 << 20
	// kubeMaxErrorBytes bounds the body of an error answer: a Status object
	// is under a kilobyte; what is past the bound is not read.
	kubeMaxErrorBytes = 64 << 10
)

// listItemLimit is kubeMaxListItems; tests lower it.
var listItemLimit = kubeMaxListItems

// ItemTooLargeError says that one value of an API server's answer (an
// object of a list) was larger than the bound readygap reads.
type ItemTooLargeError struct {
	// Endpoint is scheme://host:port of the server.
	Endpoint string
	// Limit is the bound in bytes.
	Limit int64
}

// Error implements error.
func (e *ItemTooLargeError) Error() string {
	return fmt.Sprintf("%s sent an object larger than %s, more than the API server stores (etcd's limit is 1.5 MiB): not read", e.Endpoint, words.Bytes(e.Limit))
}

// AnswerTooLargeError says that an answer read whole was larger than the
// bound readygap reads.
type AnswerTooLargeError struct {
	// Endpoint is scheme://host:port of the server.
	Endpoint string
	// Limit is the bound in bytes.
	Limit int64
}

// Error implements error.
func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("the answer from %s was larger than %s: not read", e.Endpoint, words.Bytes(e.Limit))
}

// streamedKey marks a request whose caller reads the body as a stream and
// bounds it itself (a list read item by item, a pod's log).
type streamedKey struct{}

// streamed returns ctx marking its requests' bodies as bounded by the
// caller (see kubeAnswerLimit).
func streamed(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamedKey{}, true)
}

// kubeAnswerLimit is an http.RoundTripper bounding the answers of the
// Kubernetes clients that client-go reads whole: an error answer's body is
// cut at kubeMaxErrorBytes; a successful answer's fails the read past
// kubeMaxAnswerBytes, unless the request is streamed (its caller bounds
// what it reads).
type kubeAnswerLimit struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (l kubeAnswerLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		resp.Body = &cappedBody{rc: resp.Body, left: kubeMaxErrorBytes}
	case req.Context().Value(streamedKey{}) == nil:
		resp.Body = &cappedBody{rc: resp.Body, left: kubeMaxAnswerBytes,
			over: &AnswerTooLargeError{Endpoint: endpointOf(req.URL), Limit: kubeMaxAnswerBytes}}
	}
	return resp, nil
}

// WrappedRoundTripper returns the bounded transport (client-go's
// utilnet.RoundTripperWrapper).
func (l kubeAnswerLimit) WrappedRoundTripper() http.RoundTripper { return l.next }

// cappedBody reads at most left bytes of rc; past them it ends (over nil)
// or fails with over.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	over error
}

// Read implements io.Reader.
func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.over == nil {
			return 0, io.EOF
		}
		// One byte more says whether the answer ends at the bound.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n == 0 {
			return 0, err
		}
		return 0, b.over
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

// Close implements io.Closer.
func (b *cappedBody) Close() error { return b.rc.Close() }

// kubeListPage is what readKubeList found in one page besides its items.
type kubeListPage struct {
	// Continue is the page's metadata.continue: "" on the last page.
	Continue string
	// Items counts the items read.
	Items int
}

// errStopList, returned by readKubeList's each, stops reading a page
// without an error.
var errStopList = errors.New("stop")

// readKubeList reads one page of a Kubernetes List (`{"apiVersion",
// "kind", "metadata": {"continue": ...}, "items": [...]}`, its fields in
// any order) from body item by item, calling each with every item, numbers
// kept as written (json.Number). No value of the page may be larger than
// maxItem bytes (ItemTooLargeError naming endpoint), so that memory holds
// one item whatever the page's size. each may return errStopList to stop.
func readKubeList(body io.Reader, endpoint string, maxItem int64, each func(obj map[string]any) error) (kubeListPage, error) {
	var page kubeListPage
	br := &itemBoundReader{r: body, max: maxItem, endpoint: endpoint}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	// next starts a value: the bound counts from where it begins.
	next := func() { br.start = dec.InputOffset() }
	delim := func(want json.Delim) error {
		next()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("a List from %s: %v where %v was expected", endpoint, tok, want)
		}
		return nil
	}
	if err := delim('{'); err != nil {
		return page, err
	}
	for dec.More() {
		next()
		tok, err := dec.Token()
		if err != nil {
			return page, err
		}
		switch tok {
		case "items":
			next()
			if tok, err := dec.Token(); err != nil {
				return page, err
			} else if tok == nil {
				continue
			} else if d, ok := tok.(json.Delim); !ok || d != '[' {
				return page, fmt.Errorf("a List from %s: items is %v, not an array", endpoint, tok)
			}
			for dec.More() {
				next()
				var obj map[string]any
				if err := dec.Decode(&obj); err != nil {
					return page, err
				}
				page.Items++
				if obj == nil {
					continue
				}
				if err := each(obj); err != nil {
					if err == errStopList {
						return page, nil
					}
					return page, err
				}
			}
			if err := delim(']'); err != nil {
				return page, err
			}
		case "metadata":
			next()
			var md struct {
				Continue string `json:"continue"`
			}
			if err := dec.Decode(&md); err != nil {
				return page, err
			}
			page.Continue = md.Continue
		default:
			next()
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return page, err
			}
		}
	}
	return page, delim('}')
}

// itemBoundReader fails a read that would take the value being decoded
// (from start, the decoder's offset where it began) past max bytes.
type itemBoundReader struct {
	r          io.Reader
	read       int64 // bytes read so far
	start, max int64
	endpoint   string
}

// Read implements io.Reader.
func (b *itemBoundReader) Read(p []byte) (int, error) {
	room := b.start + b.max - b.read
	if room <= 0 {
		return 0, &ItemTooLargeError{Endpoint: b.endpoint, Limit: b.max}
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}
