package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/readygap/readygap/sources"
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
}

// NewS3Client builds an S3 client from cfg. When an endpoint is configured
// (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3 or the shared config file) it
// addresses buckets by path, as S3-compatible stores expect.
func NewS3Client(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
		// gzip carries its own CRC, checked when the bundle is read.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.DisableLogOutputChecksumValidationSkipped = true
	})
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

// Fetch lists the date folders of w, keeps the objects whose name says
// they may overlap w, and downloads them unchanged (still gzip'd) into
// dir/alb/ with a bounded pool of workers.
func (a *ALBLogs) Fetch(ctx context.Context, w Window, dir string, progress Progress) (FetchReport, error) {
	rep := FetchReport{Source: SourceS3ALB, Queries: []string{}, Files: []string{}}
	regions, err := a.regionPrefixes(ctx)
	if err != nil {
		return rep, err
	}
	var keys []string
	for _, rp := range regions {
		for _, p := range datePrefixes(rp, w) {
			rep.Queries = append(rep.Queries, "s3://"+a.Bucket+"/"+p)
			found, err := a.list(ctx, p, "")
			if err != nil {
				return rep, err
			}
			for _, k := range found {
				if albWanted(k, w) {
					keys = append(keys, k)
				}
			}
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no ALB log objects for %s under s3://%s/%s", w, a.Bucket, a.root()))
		return rep, nil
	}
	files, n, err := a.download(ctx, keys, dir, progress)
	rep.Files, rep.Records, rep.Bytes = files, len(files), n
	return rep, err
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
// account and region by listing when they were not given.
func (a *ALBLogs) regionPrefixes(ctx context.Context) ([]string, error) {
	accts := []string{a.root() + a.Account + "/"}
	if a.Account == "" {
		var err error
		if accts, err = a.list(ctx, a.root(), "/"); err != nil {
			return nil, err
		}
		if len(accts) == 0 {
			return nil, fetchErrorf(SourceS3ALB, nil, "no AWSLogs/<account>/ folders under s3://%s/%s: check --alb-logs (the prefix goes before AWSLogs/)", a.Bucket, a.root())
		}
	}
	var out []string
	for _, acct := range accts {
		elb := acct + "elasticloadbalancing/"
		if a.Region != "" {
			out = append(out, elb+a.Region+"/")
			continue
		}
		regions, err := a.list(ctx, elb, "/")
		if err != nil {
			return nil, err
		}
		out = append(out, regions...)
	}
	return out, nil
}

// list returns the keys under prefix, or with a delimiter the common
// prefixes one level down.
func (a *ALBLogs) list(ctx context.Context, prefix, delimiter string) ([]string, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(a.Bucket), Prefix: aws.String(prefix)}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	var out []string
	p := s3.NewListObjectsV2Paginator(a.Client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, awsError(SourceS3ALB, "s3:ListBucket", "arn:aws:s3:::"+a.Bucket, err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
		for _, cp := range page.CommonPrefixes {
			out = append(out, aws.ToString(cp.Prefix))
		}
	}
	return out, nil
}

// download copies the objects into dir/alb/ with a bounded worker pool. The
// first error stops the other workers.
func (a *ALBLogs) download(ctx context.Context, keys []string, dir string, progress Progress) ([]string, int64, error) {
	workers := a.Workers
	if workers <= 0 {
		workers = DefaultS3Workers
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		done, total atomic.Int64
		mu          sync.Mutex
		firstErr    error
		wg          sync.WaitGroup
	)
	files := make([]string, len(keys))
	jobs := make(chan int)
	for range min(workers, len(keys)) {
		wg.Go(func() {
			for i := range jobs {
				rel, n, err := a.get(ctx, keys[i], dir)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
					continue
				}
				files[i] = rel
				bytes := total.Add(n)
				if progress != nil {
					mu.Lock() // one progress call at a time
					progress(SourceS3ALB, int(done.Add(1)), bytes)
					mu.Unlock()
				}
			}
		})
	}
	for i := range keys {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return files, total.Load(), firstErr
}

// get downloads one object into dir/alb/<base name> and returns the file's
// bundle-relative name and size.
func (a *ALBLogs) get(ctx context.Context, key, dir string) (string, int64, error) {
	out, err := a.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(a.Bucket), Key: aws.String(key)})
	if err != nil {
		return "", 0, awsError(SourceS3ALB, "s3:GetObject", "arn:aws:s3:::"+a.Bucket+"/"+key, err)
	}
	defer out.Body.Close()
	f, err := createBundleFile(dir, "alb/"+path.Base(key))
	if err != nil {
		return "", 0, err
	}
	if _, err := io.Copy(f, out.Body); err != nil {
		f.Remove()
		if errors.Is(err, context.Canceled) {
			return "", 0, err
		}
		return "", 0, fetchErrorf(SourceS3ALB, err, "download of s3://%s/%s broke off: %v", a.Bucket, key, err)
	}
	if err := f.Close(); err != nil {
		return "", 0, err
	}
	return f.rel, f.n, nil
}
