package sources

import (
	"bytes"
	"errors"
)

// nginxAccess recognises the access lines of nginx's built-in `combined`
// format and of the NGINX Inc controller's (nginx/kubernetes-ingress)
// default `main` format, `combined` followed by `"$http_x_forwarded_for"`
// (its nginx.tmpl and nginx-plus.tmpl). Neither logs the upstream: no
// address, no attempt status. A 502 in them may come from nginx or from the
// application, and the pod it concerns is unknown, so readygap reads no
// request from them: each access line is skipped with a reason naming the
// variables to add to the log format, which --nginx-format then reads. The
// nginx error-log and controller (glog) lines printed among them are valid
// lines without a record.
type nginxAccess struct{}

// Format returns FormatNginxAccess.
func (nginxAccess) Format() Format { return FormatNginxAccess }

// Reasons for skipping a line: the whole message a user reads.
var (
	errNginxCombinedNoUpstream = errors.New("nginx `combined` access line: it logs no $upstream_addr or $upstream_status, so readygap cannot tell a 502 nginx made from one the application sent, nor which pod it went to; add ` $upstream_addr $upstream_status` to the log_format and give the format with --nginx-format")
	errNginxMainNoUpstream     = errors.New("NGINX Inc controller default access line (`combined` + $http_x_forwarded_for): it logs no $upstream_addr or $upstream_status, so readygap cannot tell a 502 nginx made from one the application sent, nor which pod it went to; add ` $upstream_addr $upstream_status` to the `log-format` key of the controller's ConfigMap and give the format with --nginx-format")
	errNginxNotCombined        = errors.New("not an nginx `combined` access line")
)

// Match reports whether line is a `combined` or `main` access line, or an
// error-log or glog line.
func (nginxAccess) Match(line []byte) bool {
	line = nginxUnwrap(line)
	_, err := nginxScanCombined(line)
	return err == nil || nginxOtherLineMatch(line)
}

// Parse skips an access line with the variables its format lacks; other
// valid lines carry no record.
func (nginxAccess) Parse(line []byte, _ *Line, _ *Emitter) error {
	line = nginxUnwrap(line)
	extra, err := nginxScanCombined(line)
	switch {
	case err == nil && extra == 0:
		return errNginxCombinedNoUpstream
	case err == nil:
		return errNginxMainNoUpstream
	case nginxOtherLineMatch(line):
		return nil
	}
	return err
}

// nginxScanCombined reads a `combined` line, `$remote_addr - $remote_user
// [$time_local] "$request" $status $body_bytes_sent "$http_referer"
// "$http_user_agent"`, followed by extra quoted fields (0 for `combined`,
// 1 for `main`) and nothing else.
func nginxScanCombined(line []byte) (extra int, err error) {
	f := nginxAccessFields{}
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || line[0] == '"' || len(line) < sp+3 || line[sp+1] != '-' || line[sp+2] != ' ' {
		return 0, errNginxNotCombined
	}
	rest, err := nginxScanTime(line[sp+3:], &f)
	if err != nil {
		return 0, errNginxNotCombined
	}
	if rest, err = nginxScanRequest(rest, &f); err != nil {
		return 0, errNginxNotCombined
	}
	fields := 0
	for len(rest) > 0 {
		if rest[0] != '"' {
			return 0, errNginxNotCombined
		}
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return 0, errNginxNotCombined
		}
		rest = rest[end+2:]
		fields++
		if len(rest) > 0 {
			if rest[0] != ' ' {
				return 0, errNginxNotCombined
			}
			rest = rest[1:]
		}
	}
	if fields < 2 || fields > 3 {
		return 0, errNginxNotCombined
	}
	return fields - 2, nil
}
