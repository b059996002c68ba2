package erasurecheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
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
	// OrganizationID is the AWS organisation every account the app deploys
	// into is in (o-…; erasurectl check --organization-id, ErasureCheck's
	// organizationId), as ErasureChannelProps.OrganizationID is for the
	// channel: each call of a principal or to a resource of those accounts
	// carries it as aws:PrincipalOrgID, aws:ResourceOrgID and
	// aws:SourceOrgID, so that a data perimeter over the organisation is
	// judged. Without it (and without a channel of this app that names one)
	// a condition on those keys leaves the call undecided: a finding the
	// team may acknowledge (EC326), never a refusal.
	OrganizationID string
	// Units places accounts in the organisation: an account id's path from
	// its root through each unit down to its own (erasurectl --ou
	// ACCOUNT=ROOT/OU/…). Every account the app deploys into needs one
	// once a unit or root has policies (OrganisationError).
	Units map[string][]string
	// Parameters are values for template parameters by name, as a deploy
	// passes them (erasurectl check --parameter K=V; cdk.json context); a
	// parameter without one takes its Default.
	Parameters map[string]string
	// Access also refuses every cell of the access matrix (accessmodel.Matrix) that
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
	// Boundaries are the documents of permissions boundaries defined outside
	// the app, by the managed policy's ARN (erasurectl check --boundary
	// ARN=FILE): a role under one is judged with it. AWS managed policies
	// the check knows (AdministratorAccess, PowerUserAccess) need none.
	Boundaries map[string]any
	// Acknowledgements are acknowledgements given outside the cloud assembly
	// (erasurectl check --acknowledgements FILE), for plain templates; those
	// recorded in the cloud assembly (Acknowledge) are read from it.
	Acknowledgements []Acknowledgement
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
	Path problem.Path

	functions []cfnmodel.ResourceID // FunctionIDs with the template each is in
}

// Finding is one problem the check found: the rule, and where it points, so
// that CDK's report, erasurectl and SARIF can point at it.
type Finding struct {
	problem.Problem
	Rule      *Rule
	Stack     string // the stack; parent/NestedStackId for a nested stack
	Template  string // the template file
	LogicalID string // the resource the problem is about ("" for the template)
	// Property is the path inside the resource to the value at fault
	// (["Properties", "VisibilityTimeout"]); empty for the resource itself.
	// A value CloudFormation defaults is named all the same: the line and
	// column are then its nearest written parent's.
	Property []string
	// ConstructPath is the resource's construct path in the cloud assembly
	// ("" for a plain template).
	ConstructPath string
	// Line and Column are where Property (or its nearest written parent)
	// starts in Template, counting from 1; 0 when unknown.
	Line, Column int
	// Acknowledged is the acknowledgement that covers it, or nil.
	Acknowledged *Acknowledgement
	// Its Problem's Fix is what to change, computed from the finding (the
	// statement that denies, the value it asks for); "" where the rule's Fix
	// says it.
}

// PropertyPath is Property joined with dots, as CDK's report and cfn-lint
// name a location: "Properties.VisibilityTimeout".
func (f Finding) PropertyPath() string { return strings.Join(f.Property, ".") }

// Fails says whether the finding fails the check: an error nobody
// acknowledged.
func (f Finding) Fails() bool {
	return f.Acknowledged == nil && (f.Rule == nil || f.Rule.Severity == SeverityError)
}

// Findings is every problem of one run, in order.
type Findings []Finding

// Problems returns the findings as problem lines' values.
func (f Findings) Problems() problem.List {
	out := make(problem.List, len(f))
	for i, x := range f {
		out[i] = x.Problem
	}
	return out
}

// Strings returns one line per finding: path: Type: detail.
func (f Findings) Strings() []string { return f.Problems().Strings() }

// Failing returns the findings that fail the check (Fails).
func (f Findings) Failing() Findings {
	var out Findings
	for _, x := range f {
		if x.Fails() {
			out = append(out, x)
		}
	}
	return out
}

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

// add reports a finding of rule r on resource id at property prop.
func (f *findings) add(r *Rule, id string, path problem.Path, prop []string, format string, args ...any) {
	f.addProblem(r, id, prop, problem.Problem{Path: path, Type: r.Type, Detail: fmt.Sprintf(format, args...)})
}

func (f *findings) addProblem(r *Rule, id string, prop []string, p problem.Problem) {
	// A finding names its rule (Rule) and words its fix for the template
	// (fix, or the rule's Fix): not as the construct that shares the
	// problem's check words them.
	p.RuleID, p.Fix = "", ""
	t := f.t
	if w := f.where[id]; w != nil {
		t = w
	}
	f.out = append(f.out, Finding{Problem: p, Rule: r, Stack: t.Stack, Template: t.Path, LogicalID: id, Property: prop})
}

// fix sets the fix of the finding added last, computed from it.
func (f *findings) fix(format string, args ...any) {
	if len(f.out) > 0 {
		f.out[len(f.out)-1].Fix = fmt.Sprintf(format, args...)
	}
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

// props is a path under a resource's Properties.
func props(keys ...string) []string { return append([]string{"Properties"}, keys...) }

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
	acks, err := a.assemblyAcknowledgements()
	if err != nil {
		return nil, err
	}
	for _, k := range cfg.Acknowledgements {
		if k.Source == "" {
			k.Source = "Config.Acknowledgements"
		}
		if err := k.validate(); err != nil {
			return nil, err
		}
		acks = append(acks, k)
	}
	a.boundaries = cfg.Boundaries
	res := a.check(cfg)
	a.locate(res.Findings)
	acknowledge(res, acks)
	return res, nil
}

// locate fills each finding's construct path (the resource's aws:cdk:path,
// or the cloud assembly's) and the line and column of its property in its
// template file.
func (a *assembly) locate(fs Findings) {
	templates := map[string]*template{}
	for _, t := range a.Templates {
		templates[t.Path] = t
	}
	positions := map[string]*cfnmodel.Positions{}
	for i := range fs {
		f := &fs[i]
		t := templates[f.Template]
		if t == nil {
			continue
		}
		if f.LogicalID != "" && f.ConstructPath == "" {
			if p, ok := t.Resources[f.LogicalID].Metadata["aws:cdk:path"].(string); ok {
				f.ConstructPath = p
			} else {
				f.ConstructPath = t.ConstructPaths[f.LogicalID]
			}
		}
		if _, ok := positions[f.Template]; !ok {
			positions[f.Template] = cfnmodel.ReadPositions(f.Template)
		}
		keys := []string{"Resources", f.LogicalID}
		if f.LogicalID == "" {
			keys = []string{"Transform"}
		}
		pos := positions[f.Template].Find(append(keys, f.Property...))
		f.Line, f.Column = pos.Line, pos.Column
	}
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
	res.Findings = append(res.Findings, a.checkExecutionRoles()...)
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
		res.Findings = append(res.Findings, matrixFindings(a.matrixOf(res.Stores, cfg, nil))...)
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
		res.Findings = append(res.Findings, failingFindings(m, func(c accessmodel.Cell) bool {
			// Who else may use a store's key is Access's.
			return c.Want != iameval.Allowed && m.Target(c.Resource).Kind != channelpolicy.QueueKey
		})...)
		if _, tid, ok := a.channelTopic(); ok && len(m.Declared().Publishers) == 0 {
			f := findings{t: m.Target("topic").Template}
			f.add(ruleDeclaredPublishers, tid, problem.Root("ErasureChannel").Child("publishers"), nil, "the channel declares no publishers (ErasureChannelProps.Publishers): any principal of its account that may sns:Publish can publish an ERASE every store obeys")
			res.Findings = append(res.Findings, f.out...)
		}
	}
	return res
}

// storeCheck is one store being checked: what readStore found of it, which
// the rule families judge.
type storeCheck struct {
	t     *template // the queue's template
	store *Store
	queue resource
	f     findings // the store's lines, about its queue's stack
	c     contract.Constants

	st    *template // the subscription's template
	subID string
	sub   resource
	subF  *findings // the subscription's own lines, about its stack

	readers  []reader      // every function with an event source on the queue, the handler first
	values   []timingValue // every timing value the rules read
	firstESM string        // the handler's event source
	// eventSources counts the event sources on the queue, those whose
	// function is not of the app included.
	eventSources int
	// boundaryUnread: a call of the handler's path was left undecided by a
	// permissions boundary the check cannot read (reportUnreadBoundary).
	boundaryUnread bool
}

// reader is a function with an event source on a store's queue.
type reader struct {
	esmID   string
	et      *template // the event source's template
	esm     map[string]any
	fnID    string
	ft      *template // the function's template
	fn      resource
	env     map[string]any
	timeout int
}

// timingValue is a timing value a rule reads, where it is written.
type timingValue struct {
	t         *template
	id, field string
	prop      []string
	v         any
}

// maxBranchConditions bounds the conditions whose every assignment is judged
// (2^n runs of a store's rules).
const maxBranchConditions = 6

// storeFamilies are checkStore's walk over the registry, in the order a
// store's lines print.
var storeFamilies = []storeFamily{eventSourceFamily, handlerFamily, subscriptionFamily, queueFamily, bitmapFamily, timingFamily, deliveryFamily, readersFamily}

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
			k := f.LogicalID + "|" + f.Path.String() + "|" + string(f.Type) + "|" + f.Detail
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
		if len(cfnmodel.ConditionsReferred(def)) > 0 {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// checkStore reads one subscription's store, then judges it by every
// family of the registry (storeFamilies), in order.
func (a *assembly) checkStore(t *template, subID string, sub resource, c contract.Constants) *storeCheck {
	sc := a.readStore(t, subID, sub, c)
	if sc.store == nil {
		return sc
	}
	for _, fam := range storeFamilies {
		fam.check(a, sc)
	}
	if sc.subF != &sc.f {
		sc.f.out = append(sc.f.out, sc.subF.out...)
	}
	return sc
}

// readStore reads what the rules judge of one subscription's store: its
// queue wherever in the app it is declared, its settings as CloudFormation
// resolves them, and every function with an event source on the queue. A
// subscription that is not a store's (another protocol, an endpoint outside
// the app) is a line of its own and no store.
func (a *assembly) readStore(t *template, subID string, sub resource, c contract.Constants) *storeCheck {
	sc := &storeCheck{t: t, f: findings{t: t}, c: c, st: t, subID: subID, sub: sub}
	sc.subF = &sc.f
	f := &sc.f
	path := problem.Root("Store").Key(t.Stack + "/" + subID)
	if proto, _ := sub.Properties["Protocol"].(string); proto != "sqs" {
		f.add(ruleSubscriptionProtocol, subID, path.Child("protocol"), props("Protocol"), "%q: only an SQS queue gives retries, a dead-letter queue and pass two; subscribe a queue", proto)
		return sc
	}
	// The subscribed queue, wherever in the app it is declared (a reference,
	// an export of another stack, the ARN of its name).
	endpoint := a.Pattern(t, sub.Properties["Endpoint"])
	ref, found := a.ResourceOf(endpoint)
	qt, queueID := ref.Template, ref.ID
	if !found && endpoint != "" {
		qt, queueID, found = a.ByAlias(cfnmodel.SQSURLToARN(endpoint), "AWS::SQS::Queue")
	}
	if !found {
		f.add(ruleQueueOutsideApp, subID, path.Child("endpoint"), props("Endpoint"), "the subscribed queue is not a queue of this app (a literal ARN, another app's export, a value only deploy knows): nothing of it can be checked here; check it with the app that deploys it")
		return sc
	}
	q := qt.Resources[queueID]
	if q.Type != "AWS::SQS::Queue" {
		f.add(ruleEndpointNotAQueue, subID, path.Child("endpoint"), props("Endpoint"), "the endpoint %s is a %s, not an SQS queue; subscribe the store's queue", queueID, q.Type)
		return sc
	}
	// The store's lines are about its queue's stack; the subscription's
	// own lines about the subscription's.
	if qt != t {
		sc.t, sc.f = qt, findings{t: qt}
		sc.subF = &findings{t: t}
		f = &sc.f
	}
	t = qt
	s := &Store{Stack: t.Stack, Template: t.Path, SubscriptionID: subID, QueueID: queueID, Spec: StoreSpec{Name: queueID}}
	sc.store, sc.queue = s, q
	s.Path = problem.Root("Store").Key(t.Stack + "/" + queueID)
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
	// The queue's own stack first: its first reader is the store's handler.
	for _, e := range a.eventSourcesOf().readingFrom(cfnmodel.Aliases(t, queueID), t) {
		esms = append(esms, esm{e.id, e.t, e.props})
	}
	// Every timing value the rules read; one only deploy knows is never
	// assumed, it is a line (ruleValueOnlyDeployKnows).
	sc.values = []timingValue{{t, queueID, "visibilityTimeout", props("VisibilityTimeout"), q.Properties["VisibilityTimeout"]},
		{t, queueID, "retentionPeriod", props("MessageRetentionPeriod"), q.Properties["MessageRetentionPeriod"]},
		{t, queueID, "queueDelay", props("DelaySeconds"), q.Properties["DelaySeconds"]}}
	s.PartialReport = len(esms) > 0
	sc.eventSources = len(esms)
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
			f.add(ruleEventSourceOutsideApp, e.id, s.Path.Child("eventSource"), props("FunctionName"), "the event source %s (stack %s) invokes a function that is not one of this app (a name or ARN of another app, a value only deploy knows), so nothing can check its timeout or grants; check it with the app that deploys it", e.id, e.t.Stack)
			continue
		}
		s.FunctionIDs = append(s.FunctionIDs, fnID)
		s.functions = append(s.functions, cfnmodel.ResourceID{Template: ft, ID: fnID})
		f.in(ft, fnID)
		timeout := a.NumAt(ft, fn.Properties["Timeout"], lambdaDefaultTimeoutSeconds)
		env, _ := cfnmodel.Dig(fn.Properties, "Environment", "Variables").(map[string]any)
		r := reader{esmID: e.id, et: e.t, esm: e.props, fnID: fnID, ft: ft, fn: fn, env: env, timeout: timeout}
		if s.FunctionID == "" {
			s.FunctionID, sc.firstESM = fnID, e.id
			a.readerSettings(set, e.t, e.props, ft, env, timeout)
			if name, ok := env[contract.EnvSubscriber].(string); ok && name != "" {
				s.Spec.Name, s.Path = name, problem.Root("ErasureSubscriber").Key(name)
			}
			if bt, bucketID, ok := a.bucketOf(ft, env[contract.EnvBitmapBucket]); ok {
				prefix, _ := env[contract.EnvBitmapPrefix].(string)
				ttl, _ := strconv.Atoi(fmt.Sprint(env[contract.EnvBitmapReadTTLMillis]))
				s.Bitmap = &BitmapBucket{BucketID: bucketID, Prefix: prefix, ReadTTLMillis: ttl, Properties: bt.Resources[bucketID].Properties, t: bt}
			}
		}
		if !strings.Contains(fmt.Sprint(e.props["FunctionResponseTypes"]), "ReportBatchItemFailures") {
			s.PartialReport = false
		}
		sc.readers = append(sc.readers, r)
		envProp := func(name string) []string { return props("Environment", "Variables", name) }
		sc.values = append(sc.values, timingValue{ft, fnID, "handlerTimeout", props("Timeout"), fn.Properties["Timeout"]},
			timingValue{e.t, e.id, "batchSize", props("BatchSize"), e.props["BatchSize"]},
			timingValue{e.t, e.id, "maxBatchingWindow", props("MaximumBatchingWindowInSeconds"), e.props["MaximumBatchingWindowInSeconds"]},
			timingValue{ft, fnID, "passTwoDelay", envProp(contract.EnvPassTwoDelaySeconds), env[contract.EnvPassTwoDelaySeconds]},
			timingValue{ft, fnID, "batchTimeout", envProp(contract.EnvBatchTimeoutSeconds), env[contract.EnvBatchTimeoutSeconds]})
	}
	return sc
}

// readerSettings sets a reader's own settings on set: its function's timeout,
// its event source's batch size and window, and its handler's pass-two delay
// and batch timeout (a batch timeout left out is at most the timeout), each
// as CloudFormation resolves it.
func (a *assembly) readerSettings(set *timing.SubscriberSettings, et *template, esm map[string]any, ft *template, env map[string]any, timeout int) {
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

// The rules this file reports.
var (
	ruleDeclaredPublishers = declare(Rule{ID: "EC614", Name: "DeclaredPublishers", Type: problem.Missing, Source: FromLockdown, Reference: "ErasureChannelProps.Publishers",
		Title: "The channel declares its publishers",
		Why:   "Without declared publishers any principal of the channel's account that may sns:Publish can publish an ERASE every store obeys.",
		Fix:   "Set ErasureChannelProps.Publishers."})
	ruleEventSourceOutsideApp = declare(Rule{ID: "EC301", Name: "EventSourceFunctionOutsideApp", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "An event source on the queue invokes a function of the app",
		Why:   "A function of another app (a name or ARN, a value only deploy knows) cannot be read: neither its timeout against the visibility timeout nor its grants are judged.",
		Fix:   "Check the function with the app that deploys it; acknowledge the finding here with the name of that app."})
	ruleSubscriptionProtocol = declare(Rule{ID: "EC101", Name: "SubscriptionProtocol", Type: problem.Invalid, Source: FromSeed, Reference: "seed: every store receives the request on its own SQS queue",
		Title: "A subscription to the erasure topic delivers to an SQS queue",
		Why:   "Only an SQS queue gives a store retries, a dead-letter queue and the delayed pass two; HTTP, email, Lambda or Firehose deliveries lose requests.",
		Fix:   "Subscribe the store's queue with protocol sqs (ErasureSubscriber does)."})
	ruleQueueOutsideApp = declare(Rule{ID: "EC102", Name: "SubscribedQueueOutsideApp", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "The subscribed queue is a queue of the app being checked",
		Why:   "A queue named by a literal ARN, another app's export or a value only deploy knows cannot be read: none of its timings, keys or grants is judged.",
		Fix:   "Check the queue with the app that deploys it; acknowledge the finding in this app with the name of that app."})
	ruleEndpointNotAQueue = declare(Rule{ID: "EC103", Name: "EndpointNotAQueue", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html",
		Title: "An sqs subscription's endpoint is an SQS queue",
		Why:   "SNS refuses the subscription, or delivers nowhere.",
		Fix:   "Name the store's queue as the endpoint (its ARN, !GetAtt Queue.Arn)."})
)
