package erasurecheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// Config configures the check.
type Config struct {
	// TopicArns are literal ARNs of the erasure topic, for a channel deployed
	// by another app. A topic ErasureChannel built in this app is found by
	// itself.
	TopicArns []string
	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// CloudFormation's defaults where a template leaves a property out.
const (
	sqsDefaultVisibilitySeconds = 30
	sqsDefaultRetentionSeconds  = 345600
	lambdaDefaultTimeoutSeconds = 3
	esmDefaultBatchSize         = 10
)

// Check reads the templates at paths and returns every store subscribed to
// the erasure topic and every problem with them, all at once.
func Check(paths []string, cfg Config) ([]Store, timing.Problems, error) {
	return check(paths, cfg)
}

func check(paths []string, cfg Config) ([]Store, timing.Problems, error) {
	a, err := readAssembly(paths)
	if err != nil {
		return nil, nil, err
	}
	c := constantsOr(cfg.Constants)
	topics := a.erasureTopics(cfg.TopicArns)
	var stores []Store
	var problems timing.Problems
	for _, t := range a.templates {
		ids := make([]string, 0, len(t.Resources))
		for id := range t.Resources {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			sub := t.Resources[id]
			if sub.Type != "AWS::SNS::Subscription" || !topics.names(t.Stack, sub.Properties["TopicArn"]) {
				continue
			}
			st, p := checkStore(t, id, sub, c)
			problems = append(problems, p...)
			if st != nil {
				stores = append(stores, *st)
			}
		}
	}
	sort.SliceStable(stores, func(i, j int) bool { return stores[i].Spec.Name < stores[j].Spec.Name })
	return stores, problems, nil
}

// checkStore reads one subscription's store and lists its problems.
func checkStore(t *template, subID string, sub resource, c contract.Constants) (*Store, timing.Problems) {
	var l timing.Problems
	path := "Store[" + t.Stack + "/" + subID + "]"
	if proto, _ := sub.Properties["Protocol"].(string); proto != "sqs" {
		l.Add(path+".protocol", timing.Invalid, "%q: only an SQS queue gives retries, a dead-letter queue and pass two; subscribe a queue", proto)
		return nil, l
	}
	queueID := refID(sub.Properties["Endpoint"])
	q, ok := t.Resources[queueID]
	if !ok || q.Type != "AWS::SQS::Queue" {
		l.Add(path+".endpoint", timing.Invalid, "the subscribed queue is not declared in stack %s, so nothing can check it; declare the queue in the stack of its subscription", t.Stack)
		return nil, l
	}
	s := &Store{Stack: t.Stack, SubscriptionID: subID, QueueID: queueID, Spec: StoreSpec{Name: queueID}}
	s.Path = "Store[" + t.Stack + "/" + queueID + "]"
	set := &s.Spec.Settings
	*set = timing.Defaults(c)
	set.VisibilityTimeoutSeconds = num(q.Properties["VisibilityTimeout"], sqsDefaultVisibilitySeconds)
	set.RetentionSeconds = num(q.Properties["MessageRetentionPeriod"], sqsDefaultRetentionSeconds)
	set.MaxReceiveCount = num(dig(q.Properties, "RedrivePolicy", "maxReceiveCount"), 0)
	s.DeadLetterID = refID(dig(q.Properties, "RedrivePolicy", "deadLetterTargetArn"))
	s.RawDelivery = sub.Properties["RawMessageDelivery"] == true || sub.Properties["RawMessageDelivery"] == "true"

	// Functions with an event source on the queue.
	type esm struct {
		id    string
		props map[string]any
	}
	var esms []esm
	for id, r := range t.Resources {
		if r.Type == "AWS::Lambda::EventSourceMapping" && refersTo(r.Properties["EventSourceArn"], queueID) {
			esms = append(esms, esm{id, r.Properties})
		}
	}
	sort.Slice(esms, func(i, j int) bool { return esms[i].id < esms[j].id })
	s.PartialReport = len(esms) > 0
	for i, e := range esms {
		fnID := refID(e.props["FunctionName"])
		fn, ok := t.Resources[fnID]
		if !ok || fn.Type != "AWS::Lambda::Function" {
			continue
		}
		s.FunctionIDs = append(s.FunctionIDs, fnID)
		timeout := num(fn.Properties["Timeout"], lambdaDefaultTimeoutSeconds)
		env, _ := dig(fn.Properties, "Environment", "Variables").(map[string]any)
		if i == 0 {
			s.FunctionID = fnID
			set.HandlerTimeoutSeconds = timeout
			set.BatchSize = num(e.props["BatchSize"], esmDefaultBatchSize)
			set.MaxBatchingWindowSeconds = num(e.props["MaximumBatchingWindowInSeconds"], 0)
			if name, ok := env[contract.EnvSubscriber].(string); ok && name != "" {
				s.Spec.Name, s.Path = name, "ErasureSubscriber["+name+"]"
			}
			if v, ok := env[contract.EnvPassTwoDelaySeconds]; ok {
				set.PassTwoDelaySeconds = num(v, set.PassTwoDelaySeconds)
			}
			if v, ok := env[contract.EnvBatchTimeoutSeconds]; ok {
				set.BatchTimeoutSeconds = num(v, set.BatchTimeoutSeconds)
			} else {
				set.BatchTimeoutSeconds = min(set.BatchTimeoutSeconds, max(timeout, 1))
			}
			if bucketID := refID(env[contract.EnvBitmapBucket]); bucketID != "" {
				if bkt, ok := t.Resources[bucketID]; ok && bkt.Type == "AWS::S3::Bucket" {
					prefix, _ := env[contract.EnvBitmapPrefix].(string)
					ttl, _ := strconv.Atoi(fmt.Sprint(env[contract.EnvBitmapReadTTLMillis]))
					s.Bitmap = &BitmapBucket{BucketID: bucketID, Prefix: prefix, ReadTTLMillis: ttl, Properties: bkt.Properties}
				}
			}
		} else {
			if want := c.VisibilityTimeoutMultiplier * timeout; set.VisibilityTimeoutSeconds != want {
				l.Add(s.Path+".visibilityTimeout", timing.NotDerived, "%d s is not exactly %d x the timeout of function %s (%d s); every function reading the queue must fit", set.VisibilityTimeoutSeconds, c.VisibilityTimeoutMultiplier, fnID, want)
			}
			if timeout > c.HandlerTimeoutCapSeconds {
				l.Add(s.Path+".handlerTimeout", timing.AboveCap, "function %s: %d is above the cap of %d (T, handlerTimeoutCapSeconds, seconds)", fnID, timeout, c.HandlerTimeoutCapSeconds)
			}
		}
		if !strings.Contains(fmt.Sprint(e.props["FunctionResponseTypes"]), "ReportBatchItemFailures") {
			s.PartialReport = false
			l.Add(s.Path+".reportBatchItemFailures", timing.Missing, "the event source of function %s does not report partial batch failures: one failed record retries the whole batch, answering others twice; set FunctionResponseTypes [ReportBatchItemFailures]", fnID)
		}
		if en := e.props["Enabled"]; en == false || en == "false" {
			l.Add(s.Path+".eventSource", timing.BreaksErasure, "the event source of function %s is disabled: requests wait unread until they expire; enable it", fnID)
		}
		if rc, ok := fn.Properties["ReservedConcurrentExecutions"]; ok && num(rc, -1) == 0 {
			l.Add(s.Path+".reservedConcurrency", timing.BreaksErasure, "function %s has a reserved concurrency of 0: it never runs; remove the setting", fnID)
		}
		l = append(l, checkFunctionCanRead(t, s.Path, fnID, fn, q)...)
	}

	if !s.RawDelivery {
		l.Add(s.Path+".rawMessageDelivery", timing.Invalid, "off: the handler would receive an SNS envelope and dead-letter every request; set RawMessageDelivery true")
	}
	if sub.Properties["FilterPolicy"] != nil || sub.Properties["FilterPolicyScope"] != nil {
		l.Add(s.Path+".filterPolicy", timing.BreaksErasure, "a filter policy drops the requests it does not match without a trace; remove it and answer NOT_APPLICABLE instead")
	}
	if q.Properties["FifoQueue"] == true || q.Properties["FifoQueue"] == "true" {
		l.Add(s.Path+".queue", timing.FIFO, "pass two needs per-message delay; use a standard queue")
	}
	if len(esms) == 0 {
		l.Add(s.Path+".handler", timing.Missing, "no function has an event source on the queue: requests are never handled")
	}
	if s.DeadLetterID == "" {
		l.Add(s.Path+".deadLetterQueue", timing.Missing, "no redrive policy: a request that always fails is retried until retention ends and then lost; add a dead-letter queue with maxReceiveCount at most %d", c.MaxReceiveCount)
	} else if dlq, ok := t.Resources[s.DeadLetterID]; ok {
		if r := num(dlq.Properties["MessageRetentionPeriod"], sqsDefaultRetentionSeconds); r != c.QueueRetentionSeconds {
			l.Add(s.Path+".deadLetterQueue.retentionPeriod", timing.NotDerived, "%d s is not the channel retention of %d s (queueRetentionSeconds)", r, c.QueueRetentionSeconds)
		}
	}
	if b := s.Bitmap; b != nil {
		bp := s.Path + ".bitmapBucket"
		l = append(l, CheckBitmapBucket(BucketShapeOf(b.Properties), b.Prefix, c, bp)...)
		if b.ReadTTLMillis < 1 || b.ReadTTLMillis > set.PassTwoDelaySeconds*1000 {
			l.Add(bp+".readTtl", timing.AboveCap, "%d ms must be more than 0 and at most the pass-two delay of %d s: pass two must run after every process stopped serving the id", b.ReadTTLMillis, set.PassTwoDelaySeconds)
		}
	}
	l = append(l, checkQueueKey(t, s.Path, q, sub)...)
	l = append(l, checkQueuePolicy(t, s.Path, queueID)...)
	if len(esms) > 0 {
		for _, p := range set.Check(c, s.Path) {
			if s.DeadLetterID == "" && strings.HasSuffix(p.Path, ".maxReceiveCount") {
				continue // reported once, as the missing dead-letter queue
			}
			l = append(l, p)
		}
	}
	return s, l
}

// checkQueueKey: the queue is under a customer-managed KMS key that is not
// the topic's, SNS may use it, and only on behalf of this topic.
func checkQueueKey(t *template, path string, q resource, sub resource) timing.Problems {
	var l timing.Problems
	keyRef := q.Properties["KmsMasterKeyId"]
	if keyRef == nil {
		l.Add(path+".encryptionKey", timing.Missing, "the queue is not under a KMS key: it holds customer keys; encrypt it with a customer-managed key of the store's own")
		return l
	}
	if s, ok := keyRef.(string); ok {
		if strings.HasPrefix(s, "alias/aws/") || strings.Contains(s, ":alias/aws/") {
			l.Add(path+".encryptionKey", timing.BreaksErasure, "%s is AWS-managed: SNS cannot use it, so every delivery is dropped; use a customer-managed key", s)
		}
		return l // an imported key: its policy is not in this template
	}
	keyID := refID(keyRef)
	if topicID := refID(sub.Properties["TopicArn"]); topicID != "" {
		if topic, ok := t.Resources[topicID]; ok && refID(topic.Properties["KmsMasterKeyId"]) == keyID {
			l.Add(path+".encryptionKey", timing.Invalid, "the queue shares the topic's key: a publisher's key grant would reach the store's queue; give the queue a key of its own")
		}
	}
	key, ok := t.Resources[keyID]
	if !ok || key.Type != "AWS::KMS::Key" {
		return l
	}
	allowed, scoped := snsAllowed(statements(key.Properties["KeyPolicy"]), "kms:GenerateDataKey", "kms:Decrypt")
	switch {
	case !allowed:
		l.Add(path+".encryptionKey", timing.BreaksErasure, "the key policy does not let sns.amazonaws.com use kms:GenerateDataKey and kms:Decrypt: SNS cannot encrypt deliveries and drops them; allow it, scoped with aws:SourceArn of the topic")
	case !scoped:
		l.Add(path+".encryptionKey", timing.ConfusedDeputy, "the key policy lets sns.amazonaws.com use the key for any topic; add a condition on aws:SourceArn (the erasure topic) or aws:SourceAccount")
	}
	return l
}

// checkQueuePolicy: SNS may send to the queue, and only from this topic.
func checkQueuePolicy(t *template, path, queueID string) timing.Problems {
	var l timing.Problems
	var stmts []statement
	for _, r := range t.Resources {
		if r.Type == "AWS::SQS::QueuePolicy" && mentions(r.Properties["Queues"], queueID) {
			stmts = append(stmts, statements(r.Properties["PolicyDocument"])...)
		}
	}
	allowed, scoped := snsAllowed(stmts, "sqs:SendMessage")
	switch {
	case !allowed:
		l.Add(path+".queuePolicy", timing.BreaksErasure, "no queue policy lets sns.amazonaws.com send to the queue: SNS drops every delivery; allow sqs:SendMessage with aws:SourceArn of the topic")
	case !scoped:
		l.Add(path+".queuePolicy", timing.ConfusedDeputy, "the queue policy lets any topic send; add a condition on aws:SourceArn (the erasure topic)")
	}
	return l
}

// snsAllowed says whether a statement lets sns.amazonaws.com take every one
// of actions, and whether one such statement is scoped to a source.
func snsAllowed(stmts []statement, actions ...string) (allowed, scoped bool) {
	for _, st := range stmts {
		all := true
		for _, a := range actions {
			all = all && st.allows("sns.amazonaws.com", a)
		}
		if all {
			allowed = true
			scoped = scoped || st.scoped()
		}
	}
	return allowed, scoped
}

// checkFunctionCanRead: the function's role may decrypt the queue's key (the
// event source mapping reads with the function's role); without it every
// receive fails and the requests expire unhandled.
func checkFunctionCanRead(t *template, path, fnID string, fn resource, q resource) timing.Problems {
	var l timing.Problems
	keyID := refID(q.Properties["KmsMasterKeyId"])
	roleID := refID(fn.Properties["Role"])
	if keyID == "" || roleID == "" {
		return l // an imported key or role: not in this template
	}
	if _, ok := t.Resources[roleID]; !ok {
		return l
	}
	for _, r := range t.Resources {
		if r.Type != "AWS::IAM::Policy" || !mentions(r.Properties["Roles"], roleID) {
			continue
		}
		for _, st := range statements(r.Properties["PolicyDocument"]) {
			if st.Effect == "Allow" && st.hasAction("kms:Decrypt") && (mentions(st.Resource, keyID) || st.Resource == "*") {
				return l
			}
		}
	}
	l.Add(path+".handlerRole", timing.Missing, "the role of function %s may not kms:Decrypt the queue's key: the event source cannot read a single message; grant kms:Decrypt on the key", fnID)
	return l
}

// statement is one IAM policy statement.
type statement struct {
	Effect    string
	Principal any
	Action    any
	Resource  any
	Condition map[string]any
}

func statements(doc any) []statement {
	m, _ := doc.(map[string]any)
	list, _ := m["Statement"].([]any)
	var out []statement
	for _, s := range list {
		sm, _ := s.(map[string]any)
		st := statement{Principal: sm["Principal"], Action: sm["Action"], Resource: sm["Resource"]}
		st.Effect, _ = sm["Effect"].(string)
		st.Condition, _ = sm["Condition"].(map[string]any)
		out = append(out, st)
	}
	return out
}

func (s statement) hasAction(action string) bool {
	for _, a := range strings.Fields(strings.Trim(fmt.Sprint(s.Action), "[]")) {
		if a == action || a == "*" || strings.HasSuffix(a, ":*") && strings.HasPrefix(action, strings.TrimSuffix(a, "*")) ||
			strings.HasSuffix(a, "*") && strings.HasPrefix(action, strings.TrimSuffix(a, "*")) {
			return true
		}
	}
	return false
}

func (s statement) allows(service, action string) bool {
	p, _ := s.Principal.(map[string]any)
	return s.Effect == "Allow" && strings.Contains(fmt.Sprint(p["Service"]), service) && s.hasAction(action)
}

// scoped says whether the statement is limited to a source resource or account.
func (s statement) scoped() bool {
	for _, op := range s.Condition {
		m, _ := op.(map[string]any)
		for k := range m {
			switch strings.ToLower(k) {
			case "aws:sourcearn", "aws:sourceaccount", "aws:sourceowner":
				return true
			}
		}
	}
	return false
}
