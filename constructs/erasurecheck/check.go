package erasurecheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// Config configures the check.
type Config struct {
	// TopicArns are literal ARNs of the erasure topic, for a channel deployed
	// by another app. A topic ErasureChannel built in this app is found by
	// itself.
	TopicArns []string
	// TopicKeyArns are the erasure topic's KMS key ARNs, for a channel
	// deployed by another app (its ErasureChannel's TopicKey; erasurectl
	// check --topic-key-arn). A bitmap bucket under one is refused; with a
	// topic of another app and no key given, a bucket under a key of
	// another app is a line the check cannot settle (UnresolvedToken), never
	// a pass.
	TopicKeyArns []string
	// SCPs and RCPs are an organisation's service and resource control
	// policies to judge too, by what they are attached to: an account id,
	// an organisational unit's id (ou-…) or a root's id (r-…). The
	// documents of one target are one level, any of which may allow; every
	// level on an account's path (its root, each unit down to its own, the
	// account) must allow, and a Deny at any denies (erasurectl check and
	// access --scp/--rcp TARGET=FILE). A principal of the account is limited
	// by its SCPs, a resource of it by its RCPs. A level given nothing keeps
	// AWS Organizations' default, FullAWSAccess. None given: none judged.
	SCPs, RCPs map[string][]any
	// Units places accounts in the organisation: an account id's path from
	// its root through each unit down to its own (erasurectl --ou
	// ACCOUNT=ROOT/OU/…). Every account the app deploys into needs one
	// once a unit or root has policies (OrganisationError).
	Units map[string][]string
	// Parameters are values for template parameters by name, as a deploy
	// passes them (erasurectl check --parameter K=V; cdk.json context); a
	// parameter without one takes its Default.
	Parameters map[string]string
	// Access also refuses every cell of the access matrix (AccessMatrix) that
	// is not what the channel needs: a widened policy that lets another
	// principal answer, read a store's requests or use its key, or a narrowed
	// one that breaks the data path. Each resource's failing cells are one
	// line, Access[resource]. Without it the check still refuses, from the
	// same matrix, a store queue that admits a sender other than SNS for the
	// topic and the store's handler, and a topic that lets anyone but the
	// declared publishers publish (or declares none).
	Access bool
	// EveryAccount asks every account's witnesses of every resource, instead
	// of one account of each class the resource's policy draws
	// (accountClasses). It decides the same cells and is far slower with many
	// accounts: the reference the classes are tested against, and an audit's
	// second opinion (erasurectl access --every-account).
	EveryAccount bool
	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// minReservedConcurrency is the least reserved concurrency AWS advises for a
// function with an SQS event source (Lambda developer guide, "Using Lambda
// with Amazon SQS": set a minimum of 5 concurrent executions).
const minReservedConcurrency = 5

// CloudFormation's defaults where a template leaves a property out.
const (
	sqsDefaultVisibilitySeconds = 30
	sqsDefaultRetentionSeconds  = 345600
	lambdaDefaultTimeoutSeconds = 3
	esmDefaultBatchSize         = 10
)

// Store is one store as a synthesized template deploys it: a queue
// subscribed to the erasure topic and the functions reading it.
type Store struct {
	Stack          string
	Template       string // the template file
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

	functions []resourceRef // FunctionIDs with the template each is in
}

// resourceRef is a resource of the assembly: its template and logical id.
type resourceRef struct {
	t  *template
	id string
}

// Finding is one problem the check found, with the resource it is about, so
// that CDK's report, erasurectl and SARIF can point at it.
type Finding struct {
	timing.Problem
	Stack     string // the stack; parent/NestedStackId for a nested stack
	Template  string // the template file
	LogicalID string // the resource the problem is about
}

// Findings is every problem of one run, in order.
type Findings []Finding

// Problems returns the findings as problem lines' values.
func (f Findings) Problems() timing.Problems {
	out := make(timing.Problems, len(f))
	for i, x := range f {
		out[i] = x.Problem
	}
	return out
}

// Strings returns one line per finding: path: Type: detail.
func (f Findings) Strings() []string { return f.Problems().Strings() }

// Result is what one run of the check found.
type Result struct {
	Stores   []Store
	Findings Findings
}

// findings collects one template's findings.
type findings struct {
	t   *template
	out Findings
	// where is the template of a resource the lines name that is not in t
	// (a function or event source in another stack than its queue).
	where map[string]*template
}

func (f *findings) add(id, path string, typ timing.ProblemType, format string, args ...any) {
	f.addProblem(id, timing.Problem{Path: path, Type: typ, Detail: fmt.Sprintf(format, args...)})
}

func (f *findings) addProblem(id string, p timing.Problem) {
	t := f.t
	if w := f.where[id]; w != nil {
		t = w
	}
	f.out = append(f.out, Finding{Problem: p, Stack: t.Stack, Template: t.Path, LogicalID: id})
}

// in notes that the resource id the lines name is in t.
func (f *findings) in(t *template, id string) {
	if t == f.t {
		return
	}
	if f.where == nil {
		f.where = map[string]*template{}
	}
	f.where[id] = t
}

func (f *findings) addAll(id string, l timing.Problems) {
	for _, p := range l {
		f.addProblem(id, p)
	}
}

// Check reads the templates at paths (and the nested stacks they name) and
// returns every store subscribed to the erasure topic and every problem with
// them, all at once.
func Check(paths []string, cfg Config) (*Result, error) {
	a, err := readAssembly(paths)
	if err != nil {
		return nil, err
	}
	if err := a.setOrganisation(cfg); err != nil {
		return nil, err
	}
	return a.check(cfg), nil
}

// CheckDirectory checks a cloud assembly directory (nested assemblies and
// nested stacks included).
func CheckDirectory(dir string, cfg Config) (*Result, error) {
	paths, err := cfnmodel.TemplatePaths(dir)
	if err != nil {
		return nil, err
	}
	return Check(paths, cfg)
}

// check judges the app; setOrganisation has placed its accounts.
func (a *assembly) check(cfg Config) *Result {
	c := constantsOr(cfg.Constants)
	a.setParams(cfg.Parameters)
	topics := a.erasureTopics(cfg.TopicArns)
	topics.keys = cfg.TopicKeyArns
	res := &Result{}
	var stores []*storeCheck
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			sub := t.Resources[id]
			if made, known := a.Created(t, sub); known && !made {
				continue // not created under the template's conditions
			}
			if sub.Type != "AWS::SNS::Subscription" || !topics.names(a, t, sub.Properties["TopicArn"]) {
				continue
			}
			sc := a.checkBranches(t, id, sub, c)
			res.Findings = append(res.Findings, sc.f.out...)
			if sc.store != nil {
				stores = append(stores, sc)
			}
		}
	}
	res.Findings = append(res.Findings, a.checkTransforms()...)
	res.Findings = append(res.Findings, a.checkInlineSubscriptions(topics)...)
	res.Findings = append(res.Findings, a.checkSharedKeys(stores, topics)...)
	if len(stores) > 0 || cfg.Access {
		res.Findings = append(res.Findings, a.checkPolicyQuotas()...)
		res.Findings = append(res.Findings, a.checkServiceQuotas()...)
	}
	for _, sc := range stores {
		res.Stores = append(res.Stores, *sc.store)
	}
	sort.SliceStable(res.Stores, func(i, j int) bool { return res.Stores[i].Spec.Name < res.Stores[j].Spec.Name })
	switch {
	case cfg.Access:
		res.Findings = append(res.Findings, a.matrixFor(res.Stores, cfg).findings()...)
	case len(res.Stores) > 0:
		// Always: who may send to a store's queue (a request nobody published
		// is erased) and who may publish on the topic (an ERASE every store
		// obeys). The rest of the matrix is Access's.
		// Whether SNS acting for the topic may deliver (send to each store's
		// queue, use its key) is asked of the same evaluator by the store
		// rules (queuePolicy, encryptionKey), and what a handler needs
		// (handlerRole, responseQueue): the lockdown refuses the cells that
		// must be denied.
		m := a.matrixOf(res.Stores, cfg, lockdownCells)
		res.Findings = append(res.Findings, m.findingsOf(func(c Cell) bool {
			// Who else may use a store's key is Access's.
			return c.Want != Allowed && m.targets[c.Resource].kind != channelpolicy.QueueKey
		})...)
		if _, tid, ok := a.channelTopic(); ok && len(m.decl.publishers) == 0 {
			t := m.targets["topic"]
			res.Findings = append(res.Findings, Finding{Problem: timing.Problem{Path: "ErasureChannel.publishers", Type: timing.Missing,
				Detail: "the channel declares no publishers (ErasureChannelProps.Publishers): any principal of its account that may sns:Publish can publish an ERASE every store obeys"},
				Stack: t.t.Stack, Template: t.t.Path, LogicalID: tid})
		}
	}
	return res
}

// storeCheck is one store being checked.
type storeCheck struct {
	t     *template
	store *Store
	queue resource
	f     findings
}

// maxBranchConditions bounds the conditions whose every assignment is judged
// (2^n runs of a store's rules).
const maxBranchConditions = 6

// checkBranches is checkStore under every deploy the template allows: where a
// condition stays unknown (an SSM parameter, an import), the store is judged
// under each assignment of the template's undecided leaf conditions, and a
// line that holds only under some is refused with the assignment named.
func (a *assembly) checkBranches(t *template, subID string, sub resource, c contract.Constants) *storeCheck {
	leaves := a.undecidedLeaves(t)
	if len(leaves) == 0 || len(leaves) > maxBranchConditions {
		return a.checkStore(t, subID, sub, c)
	}
	type seen struct {
		f     Finding
		where []string
	}
	var order []string
	byKey := map[string]*seen{}
	var first *storeCheck
	runs := 1 << len(leaves)
	for mask := 0; mask < 1<<len(leaves); mask++ {
		assume := map[string]bool{}
		var label []string
		for i, name := range leaves {
			assume[name] = mask&(1<<i) != 0
			label = append(label, fmt.Sprintf("%s=%v", name, assume[name]))
		}
		a.setAssume(map[*template]map[string]bool{t: assume})
		sub, ok := t.Resources[subID]
		if !ok {
			runs-- // no store under this deploy
			continue
		}
		sc := a.checkStore(t, subID, sub, c)
		if first == nil {
			first = sc
		}
		for _, f := range sc.f.out {
			k := f.LogicalID + "|" + f.Path + "|" + string(f.Type) + "|" + f.Detail
			if byKey[k] == nil {
				byKey[k] = &seen{f: f}
				order = append(order, k)
			}
			byKey[k].where = append(byKey[k].where, strings.Join(label, ", "))
		}
	}
	a.setAssume(nil)
	if first == nil { // the subscription exists under no deploy
		return &storeCheck{t: t, f: findings{t: t}}
	}
	first.f.out = nil
	for _, k := range order {
		s := byKey[k]
		if len(s.where) < runs {
			s.f.Detail += " (when " + s.where[0] + ": a deploy the template's conditions allow)"
		}
		first.f.out = append(first.f.out, s.f)
	}
	return first
}

// undecidedLeaves are the template's conditions the check cannot decide that
// refer to no other condition: each deploy sets them one way or the other.
func (a *assembly) undecidedLeaves(t *template) []string {
	var out []string
	for name, def := range t.Conditions {
		if _, known := a.Condition(t, name); known {
			continue
		}
		if b, _ := json.Marshal(def); strings.Contains(string(b), `"Condition"`) {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// checkStore reads one subscription's store and lists its problems.
func (a *assembly) checkStore(t *template, subID string, sub resource, c contract.Constants) *storeCheck {
	sc := &storeCheck{t: t, f: findings{t: t}}
	f := &sc.f
	path := "Store[" + t.Stack + "/" + subID + "]"
	if proto, _ := sub.Properties["Protocol"].(string); proto != "sqs" {
		f.add(subID, path+".protocol", timing.Invalid, "%q: only an SQS queue gives retries, a dead-letter queue and pass two; subscribe a queue", proto)
		return sc
	}
	// The subscribed queue, wherever in the app it is declared (a reference,
	// an export of another stack, the ARN of its name).
	endpoint := a.Pattern(t, sub.Properties["Endpoint"])
	qt, queueID, found := a.ResourceOf(endpoint)
	if !found && endpoint != "" {
		qt, queueID, found = a.ByAlias(cfnmodel.SQSURLToARN(endpoint), "AWS::SQS::Queue")
	}
	if !found {
		f.add(subID, path+".endpoint", timing.UnresolvedToken, "the subscribed queue is not a queue of this app (a literal ARN, another app's export, a value only deploy knows): nothing of it can be checked here; check it with the app that deploys it")
		return sc
	}
	q := qt.Resources[queueID]
	if q.Type != "AWS::SQS::Queue" {
		f.add(subID, path+".endpoint", timing.Invalid, "the endpoint %s is a %s, not an SQS queue; subscribe the store's queue", queueID, q.Type)
		return sc
	}
	// The store's lines are about its queue's stack; the subscription's
	// own lines about the subscription's.
	subF := f
	if qt != t {
		sc.t, sc.f = qt, findings{t: qt}
		f = &sc.f
		subF = &findings{t: t}
		defer func() { sc.f.out = append(sc.f.out, subF.out...) }()
	}
	st := t
	t = qt
	s := &Store{Stack: t.Stack, Template: t.Path, SubscriptionID: subID, QueueID: queueID, Spec: StoreSpec{Name: queueID}}
	sc.store, sc.queue = s, q
	s.Path = "Store[" + t.Stack + "/" + queueID + "]"
	set := &s.Spec.Settings
	*set = timing.Defaults(c)
	set.VisibilityTimeoutSeconds = a.NumAt(t, q.Properties["VisibilityTimeout"], sqsDefaultVisibilitySeconds)
	set.RetentionSeconds = a.NumAt(t, q.Properties["MessageRetentionPeriod"], sqsDefaultRetentionSeconds)
	set.QueueDelaySeconds = a.NumAt(t, q.Properties["DelaySeconds"], 0)
	redrive, dlq := a.RedriveOf(t, q.Properties)
	set.MaxReceiveCount = cfnmodel.Number(redrive["maxReceiveCount"], 0)
	s.DeadLetterID = dlq
	s.RawDelivery = cfnmodel.IsTrue(sub.Properties["RawMessageDelivery"])

	// Functions with an event source on the queue.
	type esm struct {
		id    string
		t     *template
		props map[string]any
	}
	var esms []esm
	queueNames := cfnmodel.Aliases(t, queueID)
	// The queue's own stack first: its first reader is the store's handler.
	for _, et := range append([]*template{t}, slices.DeleteFunc(slices.Clone(a.Templates), func(x *template) bool { return x == t })...) {
		for _, id := range et.IDs() {
			if r := et.Resources[id]; r.Type == "AWS::Lambda::EventSourceMapping" && a.namesOneOf(et, r.Properties["EventSourceArn"], queueNames) {
				esms = append(esms, esm{id, et, r.Properties})
			}
		}
	}
	// Every timing value the rules read; one only deploy knows is never
	// assumed, it is a line (below).
	type value struct {
		t         *template
		id, field string
		v         any
	}
	values := []value{{t, queueID, "visibilityTimeout", q.Properties["VisibilityTimeout"]}, {t, queueID, "retentionPeriod", q.Properties["MessageRetentionPeriod"]},
		{t, queueID, "queueDelay", q.Properties["DelaySeconds"]}}
	s.PartialReport = len(esms) > 0
	firstESM := ""
	for _, e := range esms {
		f.in(e.t, e.id)
		// The function as Lambda invokes it: by name or ARN, through an
		// alias or a version, in any form the template writes it.
		ft, fnID, found := a.FunctionBehind(e.t, e.props["FunctionName"])
		fn, ok := resource{}, false
		if found {
			fn, ok = ft.Resources[fnID]
		}
		if !ok || fn.Type != "AWS::Lambda::Function" {
			f.add(e.id, s.Path+".eventSource", timing.UnresolvedToken, "the event source %s (stack %s) invokes a function that is not one of this app (a name or ARN of another app, a value only deploy knows), so nothing can check its timeout or grants; check it with the app that deploys it", e.id, e.t.Stack)
			continue
		}
		s.FunctionIDs = append(s.FunctionIDs, fnID)
		s.functions = append(s.functions, resourceRef{ft, fnID})
		f.in(ft, fnID)
		timeout := a.NumAt(ft, fn.Properties["Timeout"], lambdaDefaultTimeoutSeconds)
		env, _ := cfnmodel.Dig(fn.Properties, "Environment", "Variables").(map[string]any)
		if s.FunctionID == "" {
			s.FunctionID, firstESM = fnID, e.id
			a.readerSettings(set, e.t, e.props, ft, env, timeout)
			if name, ok := env[contract.EnvSubscriber].(string); ok && name != "" {
				s.Spec.Name, s.Path = name, "ErasureSubscriber["+name+"]"
			}
			if bt, bucketID, ok := a.bucketOf(ft, env[contract.EnvBitmapBucket]); ok {
				prefix, _ := env[contract.EnvBitmapPrefix].(string)
				ttl, _ := strconv.Atoi(fmt.Sprint(env[contract.EnvBitmapReadTTLMillis]))
				s.Bitmap = &BitmapBucket{BucketID: bucketID, Prefix: prefix, ReadTTLMillis: ttl, Properties: bt.Resources[bucketID].Properties, t: bt}
			}
		} else {
			// Every reader of the queue takes requests: each is judged with
			// its own timeout, batch, window and handler settings, on this
			// queue, by the same rules as the first.
			other := *set
			other.PassTwoDelaySeconds, other.BatchTimeoutSeconds = timing.Defaults(c).PassTwoDelaySeconds, timing.Defaults(c).BatchTimeoutSeconds
			a.readerSettings(&other, e.t, e.props, ft, env, timeout)
			readerPath := s.Path + ".reader[" + fnID + "]"
			for _, p := range other.Check(c, readerPath) {
				if strings.HasSuffix(p.Path, ".maxReceiveCount") || strings.HasSuffix(p.Path, ".retentionPeriod") || strings.HasSuffix(p.Path, ".queueDelay") {
					continue // the queue's own settings: reported once, with the first reader
				}
				f.addProblem(timingResource(p.Path, queueID, fnID, e.id), p)
			}
		}
		if e.props["FilterCriteria"] != nil {
			f.add(e.id, s.Path+".eventSource.filterCriteria", timing.BreaksErasure, "the event source of function %s filters records: Lambda deletes every request its filter does not match, unanswered (like an SNS filter policy); remove it and answer NOT_APPLICABLE instead", fnID)
		}
		for _, p := range streamOnlyESMProperties {
			if _, ok := e.props[p]; ok {
				f.add(e.id, s.Path+".eventSource."+lowerFirst(p), timing.Invalid, "%s applies to stream and Kafka event sources only: Lambda rejects it on an SQS event source at deploy (InvalidParameterValueException); remove it", p)
			}
		}
		a.checkHandlerEnvironment(sc, ft, fnID, env, c)
		if !strings.Contains(fmt.Sprint(e.props["FunctionResponseTypes"]), "ReportBatchItemFailures") {
			s.PartialReport = false
			f.add(e.id, s.Path+".reportBatchItemFailures", timing.Missing, "the event source of function %s does not report partial batch failures: one failed record retries the whole batch, answering others twice; set FunctionResponseTypes [ReportBatchItemFailures]", fnID)
		}
		if en := e.props["Enabled"]; en != nil && a.Ident(e.t, en) == "false" {
			f.add(e.id, s.Path+".eventSource", timing.BreaksErasure, "the event source of function %s is disabled: requests wait unread until they expire; enable it", fnID)
		}
		rc, ok := fn.Properties["ReservedConcurrentExecutions"]
		if ok && a.NumAt(ft, rc, -1) == 0 {
			f.add(fnID, s.Path+".reservedConcurrency", timing.BreaksErasure, "function %s has a reserved concurrency of 0: it never runs; remove the setting", fnID)
		} else if n := a.NumAt(ft, rc, -1); ok && n > 0 && n < minReservedConcurrency {
			// AWS's guidance for an SQS event source: reserve at least 5, or
			// the pollers' throttled invocations return messages to the queue,
			// each receive counting toward maxReceiveCount, and requests
			// dead-letter unanswered.
			f.add(fnID, s.Path+".reservedConcurrency", timing.BelowMinimum, "function %s has a reserved concurrency of %d, below the %d AWS advises for an SQS event source: throttled receives count toward maxReceiveCount and requests dead-letter unanswered; reserve at least %d or none", fnID, n, minReservedConcurrency, minReservedConcurrency)
		}
		a.checkFunctionWiring(sc, ft, fnID, fn, env)
		values = append(values, value{ft, fnID, "handlerTimeout", fn.Properties["Timeout"]}, value{e.t, e.id, "batchSize", e.props["BatchSize"]},
			value{e.t, e.id, "maxBatchingWindow", e.props["MaximumBatchingWindowInSeconds"]},
			value{ft, fnID, "passTwoDelay", env[contract.EnvPassTwoDelaySeconds]}, value{ft, fnID, "batchTimeout", env[contract.EnvBatchTimeoutSeconds]})
	}
	if region, ok := sub.Properties["Region"].(string); ok && region != "" {
		if arn := a.Ident(st, sub.Properties["TopicArn"]); strings.HasPrefix(arn, "arn:") {
			if parts := strings.Split(arn, ":"); len(parts) > 3 && parts[3] != "" && parts[3] != region {
				subF.add(subID, s.Path+".subscription.region", timing.Invalid, "%s is not the topic's region (%s): SNS rejects the subscription at deploy (the Region of a subscription is the topic's); remove Region or set it to the topic's", region, parts[3])
			}
		}
	}

	if !s.RawDelivery {
		subF.add(subID, s.Path+".rawMessageDelivery", timing.Invalid, "off: the handler would receive an SNS envelope and dead-letter every request; set RawMessageDelivery true")
	}
	if sub.Properties["FilterPolicy"] != nil || sub.Properties["FilterPolicyScope"] != nil {
		subF.add(subID, s.Path+".filterPolicy", timing.BreaksErasure, "a filter policy drops the requests it does not match without a trace; remove it and answer NOT_APPLICABLE instead")
	}
	if cfnmodel.IsTrue(q.Properties["FifoQueue"]) {
		f.add(queueID, s.Path+".queue", timing.FIFO, "pass two needs per-message delay; use a standard queue")
	}
	if len(esms) == 0 {
		f.add(queueID, s.Path+".handler", timing.Missing, "no function has an event source on the queue: requests are never handled")
	}
	if s.DeadLetterID == "" {
		f.add(queueID, s.Path+".deadLetterQueue", timing.Missing, "no redrive policy: a request that always fails is retried until retention ends and then lost; add a dead-letter queue with maxReceiveCount at most %d", c.MaxReceiveCount)
	} else if dlq, ok := t.Resources[s.DeadLetterID]; ok {
		if r := cfnmodel.Number(dlq.Properties["MessageRetentionPeriod"], sqsDefaultRetentionSeconds); r != c.QueueRetentionSeconds {
			f.add(s.DeadLetterID, s.Path+".deadLetterQueue.retentionPeriod", timing.NotDerived, "%d s is not the channel retention of %d s (queueRetentionSeconds)", r, c.QueueRetentionSeconds)
		}
	}
	if b := s.Bitmap; b != nil {
		bp := s.Path + ".bitmapBucket"
		bf := findings{t: b.t}
		bf.addAll(b.BucketID, CheckBitmapBucket(BucketShapeOf(b.Properties), b.Prefix, c, bp))
		if b.ReadTTLMillis < 1 || b.ReadTTLMillis > set.PassTwoDelaySeconds*1000 {
			bf.add(b.BucketID, bp+".readTtl", timing.AboveCap, "%d ms must be more than 0 and at most the pass-two delay of %d s: pass two must run after every process stopped serving the id", b.ReadTTLMillis, set.PassTwoDelaySeconds)
		}
		a.checkBucketCopies(&bf, s, c)
		f.out = append(f.out, bf.out...)
	}
	for _, u := range values {
		if _, intrinsic := u.v.(map[string]any); intrinsic && cfnmodel.Number(a.Ident(u.t, u.v), -1) < 0 {
			f.add(u.id, s.Path+"."+u.field, timing.UnresolvedToken, "a value only deploy knows (an SSM parameter, an import from another app, a condition the check cannot decide): its cap cannot be checked at synth, and it is not assumed; give a literal, or a parameter with a Default")
		}
	}
	a.checkQueueKey(sc, st, sub)
	a.checkQueuePolicy(sc, st, sub)
	a.checkReaders(sc)
	if len(esms) > 0 {
		for _, p := range set.Check(c, s.Path) {
			if s.DeadLetterID == "" && strings.HasSuffix(p.Path, ".maxReceiveCount") {
				continue // reported once, as the missing dead-letter queue
			}
			f.addProblem(timingResource(p.Path, queueID, s.FunctionID, firstESM), p)
		}
	}
	return sc
}

// readerSettings sets a reader's own settings on set: its function's timeout,
// its event source's batch size and window, and its handler's pass-two delay
// and batch timeout (a batch timeout left out is at most the timeout), each
// as CloudFormation resolves it.
func (a *assembly) readerSettings(set *timing.Store, et *template, esm map[string]any, ft *template, env map[string]any, timeout int) {
	set.HandlerTimeoutSeconds = timeout
	set.BatchSize = a.NumAt(et, esm["BatchSize"], esmDefaultBatchSize)
	set.MaxBatchingWindowSeconds = a.NumAt(et, esm["MaximumBatchingWindowInSeconds"], 0)
	if v, ok := env[contract.EnvPassTwoDelaySeconds]; ok {
		set.PassTwoDelaySeconds = a.NumAt(ft, v, set.PassTwoDelaySeconds)
	}
	if v, ok := env[contract.EnvBatchTimeoutSeconds]; ok {
		set.BatchTimeoutSeconds = a.NumAt(ft, v, set.BatchTimeoutSeconds)
	} else {
		set.BatchTimeoutSeconds = min(set.BatchTimeoutSeconds, max(timeout, 1))
	}
}

// streamOnlyESMProperties are event source mapping settings Lambda accepts
// for streams (Kinesis, DynamoDB) and Kafka only, and rejects on SQS.
var streamOnlyESMProperties = []string{"StartingPosition", "StartingPositionTimestamp", "ParallelizationFactor",
	"BisectBatchOnFunctionError", "MaximumRetryAttempts", "MaximumRecordAgeInSeconds", "TumblingWindowInSeconds"}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// timingResource is the resource a timing rule's field lives on.
func timingResource(path, queueID, fnID, esmID string) string {
	field := path[strings.LastIndex(path, ".")+1:]
	switch field {
	case "handlerTimeout", "batchTimeout", "passTwoDelay":
		return fnID
	case "batchSize", "maxBatchingWindow":
		return esmID
	}
	return queueID
}

// checkQueueKey: the queue is under a customer-managed KMS key that is not
// the topic's, SNS acting for the topic may use it, and SNS acting for a
// topic of another account may not: both asked of the evaluator.
func (a *assembly) checkQueueKey(sc *storeCheck, st *template, sub resource) {
	t, s, f := sc.t, sc.store, &sc.f
	keyRef := sc.queue.Properties["KmsMasterKeyId"]
	if keyRef == nil {
		f.add(s.QueueID, s.Path+".encryptionKey", timing.Missing, "the queue is not under a KMS key: it holds customer keys; encrypt it with a customer-managed key of the store's own")
		return
	}
	if ks := a.Ident(t, keyRef); strings.HasPrefix(ks, "alias/aws/") || strings.Contains(ks, ":alias/aws/") {
		f.add(s.QueueID, s.Path+".encryptionKey", timing.BreaksErasure, "%s is AWS-managed: SNS cannot use it, so every delivery is dropped; use a customer-managed key", ks)
		return
	}
	if topicKey := a.Ident(st, cfnmodel.Dig(a.topicResource(st, sub.Properties["TopicArn"]), "KmsMasterKeyId")); topicKey != "" && topicKey == a.KeyIdent(t, keyRef) {
		f.add(s.QueueID, s.Path+".encryptionKey", timing.Invalid, "the queue shares the topic's key: a publisher's key grant would reach the store's queue; give the queue a key of its own")
	}
	key := a.keyTarget(t, keyRef, "sqs")
	if key == nil {
		return // an imported key: its policy is not in this assembly
	}
	sns := a.topicSNS(st, sub)
	for _, act := range []string{"kms:GenerateDataKey", "kms:Decrypt"} {
		if v := a.decide(sns, act, key); v.Decision == Denied {
			f.add(key.id, s.Path+".encryptionKey", timing.BreaksErasure, "SNS acting for the erasure topic may not %s with the key (%s): SNS cannot encrypt deliveries and drops them; allow %s, scoped with aws:SourceArn of the topic", act, v.Because, iameval.SNSServicePrincipal(sns.Region, key.Region))
			return
		}
	}
	if v := a.decide(otherTopicSNS(sns, st, key.Policy), "kms:GenerateDataKey", key); v.Decision == Allowed {
		f.add(key.id, s.Path+".encryptionKey", timing.ConfusedDeputy, "the key policy lets SNS use the key for a topic of any account (%s); add a condition on aws:SourceArn (the erasure topic) or aws:SourceAccount", v.Because)
	}
}

// topicResource is the properties of the topic a subscription names, when
// the topic is a resource of the assembly.
func (a *assembly) topicResource(t *template, topicArn any) map[string]any {
	if tt, id, ok := a.ResourceOf(a.Ident(t, topicArn)); ok {
		return tt.Resources[id].Properties
	}
	return nil
}

// topicSNS is SNS acting for the topic a subscription names: aws:SourceArn
// the topic (its ARN, or its reference in this app), aws:SourceAccount its
// owner, from the topic's region.
func (a *assembly) topicSNS(t *template, sub resource) *principal {
	v := sub.Properties["TopicArn"]
	id := a.Pattern(t, v)
	p := snsFor(ErasureTopicSNS, classTopicSNS, []string{id}, iameval.ARNAccount(id), iameval.ARNRegion(id))
	if tt, tid, ok := a.ResourceOf(id); ok {
		p.Aliases, p.Account, p.Region = cfnmodel.Aliases(tt, tid), tt.Account, tt.Region
	} else if tt, tid, ok := a.ByAlias(id, "AWS::SNS::Topic"); ok {
		p.Aliases, p.Account, p.Region = cfnmodel.Aliases(tt, tid), tt.Account, tt.Region
	}
	return p
}

// otherTopicSNS is SNS acting for a topic of an account no policy of stmts
// names, in the region of the erasure topic's SNS: what a confused deputy
// would be.
func otherTopicSNS(erasureSNS *principal, t *template, stmts []statement) *principal {
	accounts := map[string]bool{t.Account: true}
	for _, s := range stmts {
		aws, _ := s.PrincipalValues()
		for _, v := range aws {
			accounts[v] = true
			accounts[iameval.ARNAccount(v)] = true
		}
		for _, k := range []string{"aws:SourceArn", "aws:SourceAccount", "aws:SourceOwner"} {
			for _, v := range s.ConditionValues(k) {
				accounts[v] = true
				accounts[iameval.ARNAccount(v)] = true
			}
		}
	}
	return witnessTopicSNS(otherTopicSNSName+anyAccountLabel, freshAccount(accounts), erasureSNS.Region)
}

// snsFor is SNS acting for a topic: aws:SourceArn the topic's names,
// aws:SourceAccount its owner, from its region ("" when unknown).
func snsFor(name, class string, topic []string, account, region string) *principal {
	return &principal{name: name, class: class, Principal: iameval.Principal{Service: "sns.amazonaws.com", Aliases: topic, Account: account, Region: region}}
}

// witnessTopicSNS is SNS acting for a topic of account that no policy names
// by its ARN, in region.
func witnessTopicSNS(name, account, region string) *principal {
	arn := fmt.Sprintf("arn:aws:sns:%s:%s:erasure-witness-topic", iameval.OrStar(region), iameval.OrStar(account))
	return snsFor(name, classOtherSNS, []string{arn}, account, region)
}

// checkQueuePolicy: SNS acting for the topic may send to the queue, and SNS
// acting for a topic of another account may not: both asked of the evaluator.
func (a *assembly) checkQueuePolicy(sc *storeCheck, st *template, sub resource) {
	s := sc.store
	queue := a.policyTarget(sc.t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues")
	sns := a.topicSNS(st, sub)
	if v := a.decide(sns, "sqs:SendMessage", queue); v.Decision == Denied {
		sc.f.add(s.QueueID, s.Path+".queuePolicy", timing.BreaksErasure, "SNS acting for the erasure topic may not send to the queue (%s): SNS drops every delivery; allow sqs:SendMessage to %s with aws:SourceArn of the topic", v.Because, iameval.SNSServicePrincipal(sns.Region, queue.Region))
		return
	}
	if v := a.decide(otherTopicSNS(sns, st, queue.Policy), "sqs:SendMessage", queue); v.Decision == Allowed {
		sc.f.add(s.QueueID, s.Path+".queuePolicy", timing.ConfusedDeputy, "the queue policy lets SNS send for a topic of any account (%s); add a condition on aws:SourceArn (the erasure topic)", v.Because)
	}
}

// checkTransforms: a template that declares a macro (SAM's
// AWS::Serverless-2016-10-31, AWS::LanguageExtensions, an account's own) is
// expanded by CloudFormation at deploy, so what it deploys is not what the
// check reads: an UnresolvedToken line, never a store silently missed or a
// correct one refused.
func (a *assembly) checkTransforms() Findings {
	var out Findings
	for _, t := range a.Templates {
		for _, tr := range t.Transforms {
			out = append(out, Finding{Problem: timing.Problem{Path: "Template[" + t.Stack + "].transform", Type: timing.UnresolvedToken,
				Detail: tr + " is expanded by CloudFormation at deploy: the check reads templates as deployed; check the processed template (aws cloudformation get-template --template-stage Processed, or SAM's translator)"},
				Stack: t.Stack, Template: t.Path})
		}
	}
	return out
}

// namesOneOf says whether v names one of a resource's names (its reference
// or the ARN of its name), an unknown account or region matching any.
func (a *assembly) namesOneOf(t *template, v any, names []string) bool {
	id := a.Pattern(t, v)
	if id == "" {
		return false
	}
	return slices.ContainsFunc(names, func(n string) bool { return iameval.ARNsMeet(id, n) })
}

// checkInlineSubscriptions: a subscription written inside the erasure
// topic's own Subscription property cannot set RawMessageDelivery (SNS's
// inline subscriptions take only an endpoint and a protocol), so an SQS
// store subscribed that way gets SNS envelopes and dead-letters every
// request, and nothing else of it can be read as a store.
func (a *assembly) checkInlineSubscriptions(topics topicRefs) Findings {
	var out Findings
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			r := t.Resources[id]
			if r.Type != "AWS::SNS::Topic" || r.Properties["Subscription"] == nil || !topics.isTopic(t, id) {
				continue
			}
			for i, sub := range iameval.ListOf(r.Properties["Subscription"]) {
				m, _ := sub.(map[string]any)
				proto := a.Ident(t, m["Protocol"])
				out = append(out, Finding{Problem: timing.Problem{Path: fmt.Sprintf("Topic[%s/%s].subscription[%d]", t.Stack, id, i), Type: timing.Invalid,
					Detail: fmt.Sprintf("an inline subscription (protocol %q) cannot set RawMessageDelivery or a redrive policy: a store's handler would receive SNS envelopes and dead-letter every request, and the check cannot read it as a store; subscribe with an AWS::SNS::Subscription", proto)},
					Stack: t.Stack, Template: t.Path, LogicalID: id})
			}
		}
	}
	return out
}
