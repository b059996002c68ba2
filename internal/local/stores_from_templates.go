package local

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract"
)

// TemplateStore is one store as a synthesized template deploys it.
type TemplateStore struct {
	Stack         string
	Spec          StoreSpec
	QueueID       string // logical id of the store's queue
	DeadLetterID  string // logical id of its dead-letter queue
	FunctionID    string // logical id of its handler
	RawDelivery   bool   // the SNS subscription delivers raw bodies
	PartialReport bool   // the event source reports partial batch failures
	// Bitmap is the bucket of a bitmap store (BitmapStoreBucket.AttachTo), or nil.
	Bitmap *TemplateBitmapBucket
}

// TemplateBitmapBucket is a bitmap store's bucket as the template deploys it.
type TemplateBitmapBucket struct {
	BucketID      string         // logical id of the AWS::S3::Bucket
	Prefix        string         // the library's prefix, from the handler's environment
	ReadTTLMillis int            // the read TTL, from the handler's environment
	Properties    map[string]any // the bucket's CloudFormation properties
}

// NoncurrentVersionExpiryDays is the shortest noncurrent-version expiry of an
// enabled rule covering the whole prefix, or 0 if none does.
func (b *TemplateBitmapBucket) NoncurrentVersionExpiryDays() int {
	best := 0
	lc, _ := b.Properties["LifecycleConfiguration"].(map[string]any)
	rules, _ := lc["Rules"].([]any)
	for _, r := range rules {
		m, _ := r.(map[string]any)
		if m["Status"] != "Enabled" || m["TagFilters"] != nil || m["ObjectSizeGreaterThan"] != nil || m["ObjectSizeLessThan"] != nil {
			continue
		}
		if p, _ := m["Prefix"].(string); !strings.HasPrefix(b.Prefix, p) {
			continue
		}
		if d := num(dig(m, "NoncurrentVersionExpiration", "NoncurrentDays"), 0); d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return best
}

// StoresFromTemplates reads every ErasureSubscriber out of the templates in a
// cloud assembly directory (cdk.out): the queue's visibility, redrive and
// retention, the DLQ's retention, the handler's timeout and environment, and
// the event source's batch settings. What runs locally is then what would be
// deployed.
func StoresFromTemplates(dir string) ([]TemplateStore, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.template.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("local: no templates in %s: synthesize first", dir)
	}
	sort.Strings(files)
	var out []TemplateStore
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var tpl struct {
			Resources map[string]struct {
				Type       string
				Properties map[string]any
			}
		}
		if err := json.Unmarshal(b, &tpl); err != nil {
			return nil, fmt.Errorf("local: %s is not a template", filepath.Base(f))
		}
		stack := strings.TrimSuffix(filepath.Base(f), ".template.json")
		for fnID, fn := range tpl.Resources {
			if fn.Type != "AWS::Lambda::Function" {
				continue
			}
			env, _ := dig(fn.Properties, "Environment", "Variables").(map[string]any)
			name, ok := env[contract.EnvSubscriber].(string)
			if !ok {
				continue
			}
			ts := TemplateStore{Stack: stack, FunctionID: fnID, Spec: StoreSpec{Name: name}}
			s := &ts.Spec.Settings
			s.HandlerTimeoutSeconds = num(fn.Properties["Timeout"], 3)
			s.PassTwoDelaySeconds, _ = strconv.Atoi(fmt.Sprint(env[contract.EnvPassTwoDelaySeconds]))
			s.BatchTimeoutSeconds, _ = strconv.Atoi(fmt.Sprint(env[contract.EnvBatchTimeoutSeconds]))
			for _, r := range tpl.Resources {
				if r.Type == "AWS::Lambda::EventSourceMapping" && refersTo(r.Properties["FunctionName"], fnID) {
					ts.QueueID = refID(r.Properties["EventSourceArn"])
					s.BatchSize = num(r.Properties["BatchSize"], 10)
					s.MaxBatchingWindowSeconds = num(r.Properties["MaximumBatchingWindowInSeconds"], 0)
					ts.PartialReport = strings.Contains(fmt.Sprint(r.Properties["FunctionResponseTypes"]), "ReportBatchItemFailures")
				}
			}
			if bucketID := refID(env[contract.EnvBitmapBucket]); bucketID != "" {
				if bkt, ok := tpl.Resources[bucketID]; ok && bkt.Type == "AWS::S3::Bucket" {
					prefix, _ := env[contract.EnvBitmapPrefix].(string)
					ttl, _ := strconv.Atoi(fmt.Sprint(env[contract.EnvBitmapReadTTLMillis]))
					ts.Bitmap = &TemplateBitmapBucket{BucketID: bucketID, Prefix: prefix, ReadTTLMillis: ttl, Properties: bkt.Properties}
				}
			}
			q, ok := tpl.Resources[ts.QueueID]
			if !ok {
				return nil, fmt.Errorf("local: stack %s: the handler of %s has no queue", stack, name)
			}
			s.VisibilityTimeoutSeconds = num(q.Properties["VisibilityTimeout"], 30)
			s.RetentionSeconds = num(q.Properties["MessageRetentionPeriod"], 345600)
			s.MaxReceiveCount = num(dig(q.Properties, "RedrivePolicy", "maxReceiveCount"), 0)
			ts.DeadLetterID = refID(dig(q.Properties, "RedrivePolicy", "deadLetterTargetArn"))
			for _, r := range tpl.Resources {
				if r.Type == "AWS::SNS::Subscription" && refersTo(r.Properties["Endpoint"], ts.QueueID) {
					ts.RawDelivery = r.Properties["RawMessageDelivery"] == true
				}
			}
			out = append(out, ts)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.Name < out[j].Spec.Name })
	return out, nil
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func num(v any, def int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return def
}

// refID is the logical id a Ref or Fn::GetAtt points at.
func refID(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if r, ok := m["Ref"].(string); ok {
		return r
	}
	if ga, ok := m["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
		s, _ := ga[0].(string)
		return s
	}
	return ""
}

func refersTo(v any, id string) bool { return id != "" && refID(v) == id }
