package live

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/readygap/readygap/internal/safego"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
)

// SourceS3ALB names the S3 ALB log source in reports and errors.
const SourceS3ALB = "s3-alb"

// albDeliveryLag is how long after its end time an ALB log object may be
// delivered; the date folder is the delivery date, so an object ending just
// before midnight can sit in the next day's folder.
const albDeliveryLag = 15 * time.Minute

// DefaultS3Workers is how many objects ALBLogs downloads at once by default.
const DefaultS3Workers = 16

// ALBLogs fetches ALB access and health-check log objects from S3, as ELB
// delivers them under
// s3://Bucket/Prefix/AWSLogs/<account>/elasticloadbalancing/<region>/yyyy/mm/dd/.
type ALBLogs struct {
	// Client is the S3 client; NewS3Client builds one from an aws.Config.
	Client *s3.Client
	// Bucket and Prefix locate the logs; Prefix is what precedes AWSLogs/.
	Bucket, Prefix string
	// Account is the AWS account id in the key; empty means every account
	// found under AWSLogs/.
	Account string
	// Region is the load balancer's region in the key; empty means every
	// region found under the account.
	Region string
	// Workers bounds the concurrent downloads; 0 means DefaultS3Workers.
	Workers int
	// Timeouts gives the source's budget; the per-call timeouts are the
	// client's (WithAWSTimeouts).
	Timeouts Timeouts
	// Done, when set, is called with the path of each object the moment
	// it is completely written, from the downloading goroutine: triage
	// starts reading it while the other objects download.
	Done func(path string)
}

// ParseS3URL splits s3://bucket/prefix into its bucket and prefix (without
// surrounding slashes).
func ParseS3URL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return "", "", fmt.Errorf("%q is not an s3://bucket/prefix URL", s)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}

// root returns the key prefix that ends in AWSLogs/.
func (a *ALBLogs) root() string {
	if a.Prefix == "" {
		return "AWSLogs/"
	}
	return strings.Trim(a.Prefix, "/") + "/AWSLogs/"
}

// albDates returns the UTC dates whose delivery folders may hold objects
// overlapping w.
func albDates(w Window) []time.Time {
	first := w.Since.UTC().Add(-sources.ALBDeliverySlack).Truncate(24 * time.Hour)
	last := w.Until.UTC().Add(sources.ALBLogInterval + sources.ALBDeliverySlack + albDeliveryLag)
	var out []time.Time
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// datePrefixes returns the date folders to list under the region folder
// regionPrefix (which ends in a slash).
func datePrefixes(regionPrefix string, w Window) []string {
	var out []string
	for _, d := range albDates(w) {
		out = append(out, regionPrefix+d.Format("2006/01/02/"))
	}
	return out
}

// Plan returns the listings Fetch makes for w, as s3:// URLs; an account or
// region to be discovered shows as *.
func (a *ALBLogs) Plan(w Window) []string {
	acct, region := a.Account, a.Region
	if acct == "" {
		acct = "*"
	}
	if region == "" {
		region = "*"
	}
	var out []string
	if a.Account == "" || a.Region == "" {
		out = append(out, "s3://"+a.Bucket+"/"+a.root()+" (discover accounts and regions)")
	}
	for _, p := range datePrefixes(a.root()+acct+"/elasticloadbalancing/"+region+"/", w) {
		out = append(out, "s3://"+a.Bucket+"/"+p)
	}
	return out
}

// Impacts of missing S3 items on the analysis.
const (
	impactALBObject  = "the load balancer's requests logged there are missing: failure counts may be low and the incident window cut short"
	impactALBListing = "the ALB log objects in that folder are unknown: the load balancer's requests logged there are missing, so failure counts may be low and the incident window cut short"
)

// Fetch lists the date folders of w, keeps the objects whose name says
// they may overlap w, and downloads them unchanged (still gzip'd) into
// dir/alb/ with a bounded pool of workers. An object that fails does not
// stop the others; a dead endpoint or rejected credentials stop the
// source, and the objects not yet asked for are listed as not requested.
func (a *ALBLogs) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	r := newRun(ctx, SourceS3ALB, "object", dir, a.Timeouts, progress)
	regions := a.regionPrefixes(r)
	var keys []string
	listed := true
	for _, rp := range regions {
		for _, p := range datePrefixes(rp, w) {
			found, ok := a.list(r, p, "")
			listed = listed && ok
			for _, k := range found {
				if albWanted(k, w) {
					keys = append(keys, k)
				}
			}
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 && listed && regions != nil {
		r.note("no ALB log objects for %s under s3://%s/%s", w, a.Bucket, a.root())
	}
	a.download(r, keys, dir)
	return r.finish()
}

// albWanted reports whether the object key is an access or health-check log
// object that may overlap w. Connection logs are left out: nothing reads them.
func albWanted(key string, w Window) bool {
	base := path.Base(key)
	if strings.HasPrefix(base, "conn_log") || !strings.Contains(base, "_elasticloadbalancing_") {
		return false
	}
	if _, ok := sources.ALBObjectEnd(base); !ok {
		return false
	}
	return sources.ALBObjectMayOverlap(base, w.Since, w.Until)
}

// regionPrefixes returns the region folders to list, discovering the
// account and region by listing when they were not given. It returns nil
// when discovery failed or found no account.
func (a *ALBLogs) regionPrefixes(r *run) []string {
	accts := []string{a.root() + a.Account + "/"}
	if a.Account == "" {
		var ok bool
		accts, ok = a.list(r, a.root(), "/")
		if len(accts) == 0 {
			if ok { // else the failed listing says why
				r.stop(fetchErrorf(SourceS3ALB, nil, "no AWSLogs/<account>/ folders under s3://%s/%s: check --alb-logs (the prefix goes before AWSLogs/)", a.Bucket, a.root()))
			}
			return nil
		}
	}
	var out []string
	for _, acct := range accts {
		elb := acct + "elasticloadbalancing/"
		if a.Region != "" {
			out = append(out, elb+a.Region+"/")
			continue
		}
		regions, _ := a.list(r, elb, "/")
		out = append(out, regions...)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// list returns the keys under prefix, or with a delimiter the common
// prefixes one level down, recording the listing as an item. It reports
// false when the listing failed or was not made.
func (a *ALBLogs) list(r *run, prefix, delimiter string) ([]string, bool) {
	return a.listSizes(r, prefix, delimiter, nil)
}

// listSizes is list, recording in sizes, when not nil, each key's size.
func (a *ALBLogs) listSizes(r *run, prefix, delimiter string, sizes map[string]int64) ([]string, bool) {
	name := "s3://" + a.Bucket + "/" + prefix
	r.mu.Lock()
	r.rep.Queries = append(r.rep.Queries, name)
	r.mu.Unlock()
	i := r.add(bundle.Item{Kind: "listing", Name: name, Status: bundle.ItemNotRequested, Impact: impactALBListing})
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return nil, false
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(a.Bucket), Prefix: aws.String(prefix)}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	ctx := withRetryHook(r.ctx, func(why string) { r.retry(name, why) })
	defer r.settle(name)
	var out []string
	p := s3.NewListObjectsV2Paginator(a.Client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			why := r.fail(err, func(err error) *FetchError {
				return awsError(SourceS3ALB, "s3:ListBucket", "arn:aws:s3:::"+a.Bucket, err)
			})
			r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
			return out, false
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
			if sizes != nil {
				sizes[aws.ToString(o.Key)] = aws.ToInt64(o.Size)
			}
		}
		for _, cp := range page.CommonPrefixes {
			out = append(out, aws.ToString(cp.Prefix))
		}
	}
	r.update(i, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
	return out, true
}

// download copies the objects into dir/alb/ with a bounded worker pool.
// Every object is an item; those never asked for get the reason the
// source stopped.
func (a *ALBLogs) download(r *run, keys []string, dir string) {
	workers := a.Workers
	if workers <= 0 {
		workers = DefaultS3Workers
	}
	first := -1
	for _, k := range keys {
		i := r.add(bundle.Item{Kind: "object", Name: "s3://" + a.Bucket + "/" + k, Status: bundle.ItemNotRequested, Impact: impactALBObject})
		if first < 0 {
			first = i
		}
	}
	jobs := make(chan int)
	var wg safego.Group // a worker's panic reaches the command's recovery
	for range min(workers, len(keys)) {
		wg.Go(func() {
			defer func() {
				for range jobs { // drained, so that the feed never waits for ever
				}
			}()
			for j := range jobs {
				a.get(r, first+j, keys[j], dir)
			}
		})
	}
feed:
	for j := range keys {
		select {
		case jobs <- j:
		case <-r.ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if why := r.stopReason(); why != "" {
		for j := range keys {
			r.update(first+j, func(it *bundle.Item) {
				if it.Status == bundle.ItemNotRequested {
					it.Reason = why
				}
			})
		}
	}
}

// get downloads one object into dir/alb/<base name> and records it in item
// i. An object that breaks off keeps what was read (a truncated gzip
// stream reads up to the break) and is marked partial.
func (a *ALBLogs) get(r *run, i int, key, dir string) {
	if r.stopReason() != "" {
		return
	}
	ctx := withRetryHook(r.ctx, func(why string) { r.retry(key, why) })
	defer r.settle(key)
	word := func(err error) *FetchError {
		return awsError(SourceS3ALB, "s3:GetObject", "arn:aws:s3:::"+a.Bucket+"/"+a.root()+"*", err)
	}
	out, err := a.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(a.Bucket), Key: aws.String(key)})
	if err != nil {
		why := r.fail(err, word)
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return
	}
	f := newBundleFile(dir, "alb/"+path.Base(key), "", "")
	n, err := io.Copy(f, out.Body)
	out.Body.Close()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		r.update(i, func(it *bundle.Item) {
			it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, f.rel, 1, n, ""
		})
		r.saved(1, n)
		if a.Done != nil {
			a.Done(filepath.Join(dir, filepath.FromSlash(f.rel)))
		}
		return
	}
	if f.err != nil { // the disk, not the network: every other object would fail too
		fe := fetchErrorf(SourceS3ALB, f.err, "writing %s: %v", f.rel, f.err).stopping()
		r.stop(fe)
		f.Remove()
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, fe.Msg })
		return
	}
	why := r.fail(err, func(err error) *FetchError {
		if fe := transportError(SourceS3ALB, err); fe != nil {
			return fe
		}
		return fetchErrorf(SourceS3ALB, err, "download broke off after %s: %v", words.Bytes(n), err)
	})
	if n == 0 {
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return
	}
	r.update(i, func(it *bundle.Item) { it.Status, it.File, it.Bytes, it.Reason = bundle.ItemPartial, f.rel, n, why })
	r.saved(0, n)
}
