// Package erasurecheck checks what a CDK app will deploy for every SQS queue
// subscribed to the erasure topic, however the store was built (with
// erasure.ErasureSubscriber, by hand, with another construct library): it
// reads the synthesized templates, finds every subscription to the erasure
// topic, and refuses the wiring that breaks the channel's caps or that would
// deploy cleanly and then fail or silently lose requests. Add it to an app in
// one line:
//
//	awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{}))
//
// It reads templates, not constructs, so what it judges is exactly what
// CloudFormation will deploy: L1 resources, escape hatches and property
// overrides included.
package erasurecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// TopicMetadataKey marks the erasure topic in a template (ErasureChannel sets
// it), so subscriptions to it are found by reference, import or ARN.
const TopicMetadataKey = "erasure:topic"

// StoreSpec is one store's name and timing settings as deployed.
type StoreSpec struct {
	Name     string
	Settings timing.Store
}

// Store is one store as a synthesized template deploys it: a queue
// subscribed to the erasure topic and the functions reading it.
type Store struct {
	Stack          string
	Spec           StoreSpec
	SubscriptionID string   // logical id of the AWS::SNS::Subscription
	QueueID        string   // logical id of the store's queue
	DeadLetterID   string   // logical id of its dead-letter queue
	FunctionID     string   // logical id of its (first) handler
	FunctionIDs    []string // every function with an event source on the queue
	RawDelivery    bool     // the subscription delivers raw bodies
	PartialReport  bool     // every event source reports partial batch failures
	// Bitmap is the bucket of a bitmap store (BitmapStoreBucket.AttachTo), or nil.
	Bitmap *BitmapBucket
	// Path prefixes the store's problems: ErasureSubscriber[name] for a
	// store built by ErasureSubscriber, Store[stack/queue] otherwise.
	Path string
}

// BitmapBucket is a bitmap store's bucket as the template deploys it.
type BitmapBucket struct {
	BucketID      string         // logical id of the AWS::S3::Bucket
	Prefix        string         // the library's prefix, from the handler's environment
	ReadTTLMillis int            // the read TTL, from the handler's environment
	Properties    map[string]any // the bucket's CloudFormation properties
}

// NoncurrentVersionExpiryDays is the shortest noncurrent-version expiry of an
// enabled rule covering the whole prefix, or 0 if none does.
func (b *BitmapBucket) NoncurrentVersionExpiryDays() int {
	best := 0
	for _, r := range BucketShapeOf(b.Properties).Rules {
		if !covers(r, b.Prefix) {
			continue
		}
		if d := num(dig(r, "NoncurrentVersionExpiration", "NoncurrentDays"), 0); d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return best
}

// resource is one template resource.
type resource struct {
	Type       string
	Properties map[string]any
	Metadata   map[string]any
}

// template is one synthesized stack.
type template struct {
	Stack     string
	Path      string
	Account   string // from the cloud assembly's manifest, "" if unknown
	Region    string
	Resources map[string]resource
	Outputs   map[string]struct {
		Value  any
		Export struct{ Name any }
	}
}

// assembly is every template of a cloud assembly.
type assembly struct {
	templates []*template
}

// readAssembly reads the templates at paths (and the manifest beside them for
// each stack's account and region).
func readAssembly(paths []string) (*assembly, error) {
	a := &assembly{}
	envs := map[string][2]string{}
	for _, p := range paths {
		readManifestEnvs(filepath.Dir(p), envs)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var t template
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("erasurecheck: %s is not a template", filepath.Base(p))
		}
		t.Path = p
		t.Stack = strings.TrimSuffix(filepath.Base(p), ".template.json")
		if env, ok := envs[filepath.Base(p)]; ok {
			t.Account, t.Region = env[0], env[1]
		}
		a.templates = append(a.templates, &t)
	}
	return a, nil
}

// readManifestEnvs maps template file names to their stack's account and region.
func readManifestEnvs(dir string, out map[string][2]string) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return
	}
	var m struct {
		Artifacts map[string]struct {
			Type        string
			Environment string
			Properties  struct{ TemplateFile string }
		}
	}
	if json.Unmarshal(b, &m) != nil {
		return
	}
	for _, a := range m.Artifacts {
		if a.Type != "aws:cloudformation:stack" {
			continue
		}
		env := strings.TrimPrefix(a.Environment, "aws://")
		if acct, region, ok := strings.Cut(env, "/"); ok {
			out[a.Properties.TemplateFile] = [2]string{acct, region}
		}
	}
}

// TemplatePaths lists the templates of a cloud assembly directory.
func TemplatePaths(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.template.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("erasurecheck: no templates in %s: synthesize first", dir)
	}
	return files, nil
}

// topicRef is how a subscription may name the erasure topic.
type topicRefs struct {
	local   map[string]map[string]bool // stack -> logical ids of marked topics
	exports map[string]bool            // export names whose value is a marked topic
	arns    map[string]bool            // literal ARNs
}

func (a *assembly) erasureTopics(extraARNs []string) topicRefs {
	r := topicRefs{local: map[string]map[string]bool{}, exports: map[string]bool{}, arns: map[string]bool{}}
	for _, arn := range extraARNs {
		r.arns[arn] = true
	}
	for _, t := range a.templates {
		for id, res := range t.Resources {
			if res.Type != "AWS::SNS::Topic" || res.Metadata[TopicMetadataKey] != true {
				continue
			}
			if r.local[t.Stack] == nil {
				r.local[t.Stack] = map[string]bool{}
			}
			r.local[t.Stack][id] = true
			if name, ok := res.Properties["TopicName"].(string); ok && t.Account != "" && t.Region != "" && !strings.Contains(t.Account, "unknown") {
				r.arns[fmt.Sprintf("arn:aws:sns:%s:%s:%s", t.Region, t.Account, name)] = true
			}
			for _, o := range t.Outputs {
				if refID(o.Value) == id {
					if n, ok := o.Export.Name.(string); ok {
						r.exports[n] = true
					}
				}
			}
		}
	}
	return r
}

// names says whether v (a subscription's TopicArn in stack) is the erasure topic.
func (r topicRefs) names(stack string, v any) bool {
	switch x := v.(type) {
	case string:
		return r.arns[x]
	case map[string]any:
		if id := refID(x); id != "" {
			return r.local[stack][id]
		}
		if n, ok := x["Fn::ImportValue"].(string); ok {
			return r.exports[n]
		}
	}
	return false
}

// ReadStores reads every store of a cloud assembly directory: every queue
// subscribed to the erasure topic, with its timing settings as deployed.
func ReadStores(dir string) ([]Store, error) {
	paths, err := TemplatePaths(dir)
	if err != nil {
		return nil, err
	}
	stores, _, err := check(paths, Config{})
	return stores, err
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
	switch x := v.(type) {
	case float64:
		return int(x)
	case string: // CloudFormation accepts numbers as strings
		if n, err := strconv.Atoi(x); err == nil {
			return n
		}
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

// mentions says whether v (any CloudFormation value) refers to id anywhere.
func mentions(v any, id string) bool {
	switch x := v.(type) {
	case map[string]any:
		if refID(x) == id {
			return true
		}
		for _, e := range x {
			if mentions(e, id) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if mentions(e, id) {
				return true
			}
		}
	}
	return false
}

func constantsOr(c *contract.Constants) contract.Constants {
	if c != nil {
		return *c
	}
	return contract.Channel()
}
