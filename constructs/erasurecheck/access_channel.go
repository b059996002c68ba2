package erasurecheck

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// lockdownCells are the cells the check judges without Config.Access: every
// sender of a store's queue and every publisher of the topic.
func lockdownCells(k channelpolicy.Kind, action string) bool {
	return k == channelpolicy.Queue && action == "sqs:SendMessage" || k == channelpolicy.Topic && action == "sns:Publish" ||
		k == channelpolicy.QueueKey && (action == "kms:GenerateDataKey" || action == "kms:Decrypt")
}

// matrixOf is the access matrix of the channel and the stores the check
// found, with only the cells only admits (all, when nil).
func (a *assembly) matrixOf(stores []Store, cfg Config, only func(channelpolicy.Kind, string) bool) *accessmodel.Matrix {
	return accessmodel.New(a.channelOf(stores, cfg), *a.context(), accessmodel.Options{EveryAccount: cfg.EveryAccount, Only: only})
}

// channelOf is what the access model is told of the app: the channel's
// resources and the stores' with their policies, every role, and what the
// channel's constructs declare.
func (a *assembly) channelOf(stores []Store, cfg Config) *accessmodel.Channel {
	ch := &accessmodel.Channel{Handlers: map[string]*accessmodel.Principal{}, Declared: accessmodel.Declared{Roster: map[string]bool{}, RosterAccounts: map[string]bool{}}}
	a.findTargets(ch, stores, cfg)
	a.addAnchors(ch)
	ch.Roles = a.appRoles(ch.Handlers)
	return ch
}

// appRoles are the app's roles but its handlers', each named
// role/<stack>/<id>.
func (a *assembly) appRoles(handlers map[string]*accessmodel.Principal) []*accessmodel.Principal {
	handled := map[string]bool{}
	for _, h := range handlers {
		for _, al := range h.Aliases {
			handled[al] = true
		}
	}
	var out []*accessmodel.Principal
	for _, t := range a.Templates {
		for _, id := range t.IDsOf("AWS::IAM::Role") {
			if handled[cfnmodel.ResIdent(t, id)] {
				continue
			}
			p := a.rolePrincipal(t, cfnmodel.GetAtt(id, "Arn"))
			p.Name = "role/" + t.Stack + "/" + id
			out = append(out, p)
		}
	}
	return out
}

// add names a target of kind for store ("" for the channel's own) and puts
// it on the channel. A name already there (a third ledger anchor in one
// stack) is numbered, name#2 and on: no resource is left out of the matrix.
func (a *assembly) add(ch *accessmodel.Channel, name string, kind channelpolicy.Kind, store string, t *accessmodel.Target) {
	if t == nil {
		return
	}
	t.Kind, t.Store = kind, store
	t.Admins = a.administratorsOf(t)
	if t.Template != nil {
		r := t.Template.Resources[t.ID]
		props := r.Properties
		if props == nil {
			props = map[string]any{}
		}
		t.Locked = r.Metadata[channelpolicy.KindMetadataKey] != nil
		t.Gate = &channelpolicy.Resource{Properties: props, DeletionPolicy: r.DeletionPolicy, UpdateReplacePolicy: r.UpdateReplacePolicy}
	}
	t.Name = name
	var taken *accessmodel.DuplicateTargetError
	for n := 2; errors.As(ch.Add(t), &taken); n++ {
		t.Name = fmt.Sprintf("%s#%d", name, n)
	}
}

// numbered is name, or when taken already name#2 and on; it takes the one
// it returns.
func numbered(taken map[string]bool, name string) string {
	out := name
	for n := 2; taken[out]; n++ {
		out = fmt.Sprintf("%s#%d", name, n)
	}
	taken[out] = true
	return out
}

func (a *assembly) findTargets(ch *accessmodel.Channel, stores []Store, cfg Config) {
	topics := a.erasureTopics(cfg.TopicArns)
	ch.TopicIdents = topics.idents
	if tt, tid, ok := a.channelTopic(); ok {
		ch.TopicAccount, ch.TopicRegion = tt.Account, tt.Region
		a.add(ch, "topic", channelpolicy.Topic, "", a.policyTarget(tt, tid, "AWS::SNS::TopicPolicy", "Topics"))
		a.add(ch, "topic-key", channelpolicy.TopicKey, "", a.keyTarget(tt, tt.Resources[tid].Properties["KmsMasterKeyId"], "sns"))
		ch.Declared.Publishers = a.metadataList(tt, tid, channelpolicy.PublishersMetadataKey)
	} else if len(topics.idents) > 0 {
		ch.TopicAccount, ch.TopicRegion = iameval.ARNAccount(topics.idents[0]), iameval.ARNRegion(topics.idents[0])
	}
	taken := map[string]bool{}
	for _, s := range stores {
		t := a.TemplateAt(s.Template)
		if t == nil {
			continue
		}
		name := storeName(s)
		if taken[name] {
			name = s.Stack + "/" + s.QueueID // two hand-rolled stores of one shape
		}
		name = numbered(taken, name)
		a.add(ch, "queue/"+name, channelpolicy.Queue, name, a.policyTarget(t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues"))
		if s.DeadLetterID != "" {
			a.add(ch, "dlq/"+name, channelpolicy.DeadLetters, name, a.policyTarget(t, s.DeadLetterID, "AWS::SQS::QueuePolicy", "Queues"))
		}
		a.add(ch, "queue-key/"+name, channelpolicy.QueueKey, name, a.keyTarget(t, t.Resources[s.QueueID].Properties["KmsMasterKeyId"], "sqs"))
		if b := s.Bitmap; b != nil {
			bucket := a.policyTarget(b.t, b.BucketID, "AWS::S3::BucketPolicy", "Bucket")
			objects := *bucket
			objects.Aliases = nil
			for _, al := range cfnmodel.Aliases(b.t, b.BucketID) {
				objects.Aliases = append(objects.Aliases, al+"/"+b.Prefix+"subject-probe/segments/s0.1.crbm")
			}
			a.add(ch, "bucket/"+name, channelpolicy.Bucket, name, bucket)
			a.add(ch, "bucket-objects/"+name, channelpolicy.BucketObjects, name, &objects)
			// One class of object per place the store keeps objects: its
			// registry rows, and (under a prefix) what lies outside it.
			objectsAt := func(key string) *accessmodel.Target {
				o := *bucket
				o.Aliases = nil
				for _, al := range cfnmodel.Aliases(b.t, b.BucketID) {
					o.Aliases = append(o.Aliases, al+"/"+key)
				}
				return &o
			}
			a.add(ch, "bucket-rows/"+name, channelpolicy.BucketRows, name, objectsAt(b.Prefix+"registry/subject-probe/s0.reg"))
			if b.Prefix != "" {
				a.add(ch, "bucket-outside/"+name, channelpolicy.BucketOutside, name, objectsAt("outside-the-store-prefix-probe"))
			}
			a.add(ch, "bucket-key/"+name, channelpolicy.BucketKey, name, a.keyTarget(b.t, a.bucketKeyValue(b), "s3"))
		}
		if len(s.functions) > 0 {
			ft := s.functions[0].Template
			fn := ft.Resources[s.functions[0].ID]
			ch.Handlers[name] = a.rolePrincipal(ft, fn.Properties["Role"])
			if ch.Target("response-queue") == nil {
				if env, _ := cfnmodel.Dig(fn.Properties, "Environment", "Variables").(map[string]any); env != nil {
					a.responseTargets(ch, ft, env[contract.EnvResponseQueueURL])
				}
			}
		}
	}
	if ch.Target("response-queue") == nil {
		if t, id, ok := a.channelResponseQueue(); ok {
			a.responseTargets(ch, t, cfnmodel.Ref(id))
		}
	}
	if rq := ch.Target("response-queue"); rq != nil {
		ch.Declared.Readers = a.metadataList(rq.Template, rq.ID, channelpolicy.ReadersMetadataKey)
		for _, n := range iameval.StringsOf(rq.Template.Resources[rq.ID].Metadata[RosterMetadataKey]) {
			ch.Declared.Roster[n] = true
		}
		for _, v := range iameval.ListOf(rq.Template.Resources[rq.ID].Metadata[RosterAccountsMetadataKey]) {
			acct := a.Pattern(rq.Template, v)
			if !accountID.MatchString(acct) {
				acct = rq.Template.Account // the stack's own account, unknown at synth
			}
			ch.Declared.RosterAccounts[acct] = true
		}
		if _, did := a.RedriveOf(rq.Template, rq.Template.Resources[rq.ID].Properties); did != "" {
			a.add(ch, "response-dlq", channelpolicy.ResponseDLQ, "", a.policyTarget(rq.Template, did, "AWS::SQS::QueuePolicy", "Queues"))
		}
	}
	if len(ch.Declared.Readers) == 0 {
		ch.Declared.Readers = ch.Declared.Publishers
	}
}

// addAnchors adds every ledger anchor of the app (the buckets marked
// channelpolicy.LedgerAnchor): the bucket, and its heads as one object class.
func (a *assembly) addAnchors(ch *accessmodel.Channel) {
	n := 0
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			r := t.Resources[id]
			if r.Type != "AWS::S3::Bucket" || r.Metadata[channelpolicy.KindMetadataKey] != string(channelpolicy.LedgerAnchor) {
				continue
			}
			suffix := ""
			if n++; n > 1 {
				suffix = "/" + t.Stack
			}
			bucket := a.policyTarget(t, id, "AWS::S3::BucketPolicy", "Bucket")
			bucket.Writers = a.metadataList(t, id, channelpolicy.WritersMetadataKey)
			bucket.Readers = a.metadataList(t, id, channelpolicy.ReadersMetadataKey)
			heads := *bucket
			heads.Aliases = nil
			for _, al := range cfnmodel.Aliases(t, id) {
				heads.Aliases = append(heads.Aliases, al+"/"+contract.LedgerAnchorPrefix+"anchor-probe")
			}
			a.add(ch, string(channelpolicy.LedgerAnchor)+suffix, channelpolicy.LedgerAnchor, "", bucket)
			a.add(ch, string(channelpolicy.LedgerAnchorObjects)+suffix, channelpolicy.LedgerAnchorObjects, "", &heads)
		}
	}
}

// metadataList renders a resource's metadata list (ARNs, possibly built
// with intrinsics).
func (a *assembly) metadataList(t *template, id, key string) []string {
	var out []string
	for _, v := range iameval.ListOf(t.Resources[id].Metadata[key]) {
		if s := a.Pattern(t, v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// administratorsOf is the ARN patterns the target's construct declared for
// its administrators, or the default administrators of its account.
func (a *assembly) administratorsOf(t *accessmodel.Target) []string {
	if t.Template != nil {
		if list := a.metadataList(t.Template, t.ID, channelpolicy.AdministratorsMetadataKey); len(list) > 0 {
			return list
		}
	}
	acct, region := iameval.OrStar(t.Account), "*"
	if t.Template != nil && t.Template.Region != "" {
		region = t.Template.Region
	}
	return []string{channelpolicy.DefaultAdministrators("aws", acct, region)}
}

// channelTopic is the erasure topic ErasureChannel built in this app, if any.
func (a *assembly) channelTopic() (*template, string, bool) {
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if r := t.Resources[id]; r.Type == "AWS::SNS::Topic" && r.Metadata[TopicMetadataKey] == true {
				return t, id, true
			}
		}
	}
	return nil, "", false
}

// policyTarget is a queue, topic or bucket with its resource policy: every
// policyType resource in its template whose listProp names it.
func (a *assembly) policyTarget(t *template, id, policyType, listProp string) *accessmodel.Target {
	tg := &accessmodel.Target{Resource: iameval.Resource{Aliases: withDeployARN(cfnmodel.Aliases(t, id), t, id), Account: t.Account, Region: t.Region}, Template: t, ID: id}
	inline, inlineProp := map[string]string{"AWS::SQS::QueuePolicy": "AWS::SQS::QueueInlinePolicy", "AWS::SNS::TopicPolicy": "AWS::SNS::TopicInlinePolicy"}[policyType],
		map[string]string{"AWS::SQS::QueuePolicy": "Queue", "AWS::SNS::TopicPolicy": "TopicArn"}[policyType]
	var policies []string
	types := []string{policyType}
	if inline != "" {
		types = append(types, inline)
	}
	for _, pid := range a.policiesNaming(t, id, types, listProp, inlineProp) {
		r := t.Resources[pid]
		switch {
		case r.Type == policyType && a.Names(t, r.Properties[listProp], t, id),
			inline != "" && r.Type == inline && a.Names(t, r.Properties[inlineProp], t, id):
			tg.Policy = append(tg.Policy, a.policy(t, r.Properties["PolicyDocument"], pid)...)
			policies = append(policies, pid)
		}
	}
	if len(policies) > 1 {
		// A queue, topic or bucket has one policy: each of these resources
		// sets it whole, and whichever deploys last replaces the others.
		tg.Conflict = fmt.Sprintf("%d resource policies (%s) set the same policy: whichever deploys last replaces the others; merge them into one",
			len(policies), strings.Join(policies, ", "))
	}
	return tg
}

// keyTarget is the KMS key v names, with its key policy, or nil when it is
// not a key of this app; via is the service that uses it for its callers.
func (a *assembly) keyTarget(t *template, v any, via string) *accessmodel.Target {
	if v == nil {
		return nil
	}
	ref, ok := a.ResourceOf(a.KeyIdent(t, v))
	kt, kid := ref.Template, ref.ID
	if !ok || kt.Resources[kid].Type != "AWS::KMS::Key" {
		return nil
	}
	return &accessmodel.Target{Resource: iameval.Resource{Aliases: withDeployARN([]string{cfnmodel.ResIdent(kt, kid)}, kt, kid), Account: kt.Account, Region: kt.Region, IsKey: true, Via: via,
		Policy: a.policy(kt, kt.Resources[kid].Properties["KeyPolicy"], kid)}, Template: kt, ID: kid}
}

// bucketKeyValue is the value naming the bucket's default-encryption key.
func (a *assembly) bucketKeyValue(b *BitmapBucket) any {
	enc, _ := field(b.Properties, "BucketEncryption").(map[string]any)
	for _, r := range iameval.ListOf(field(enc, "ServerSideEncryptionConfiguration")) {
		rm, _ := r.(map[string]any)
		def, _ := field(rm, "ServerSideEncryptionByDefault").(map[string]any)
		if k := field(def, "KMSMasterKeyID"); k != nil {
			return k
		}
	}
	return nil
}

// responseTargets adds the response queue and its key that a handler's
// ERASURE_RESPONSE_QUEUE_URL names, when they are in this app.
func (a *assembly) responseTargets(ch *accessmodel.Channel, t *template, url any) {
	if url == nil {
		return
	}
	q := cfnmodel.SQSURLToARN(a.Ident(t, url))
	ref, ok := a.ResourceOf(q)
	qt, qid := ref.Template, ref.ID
	if !ok {
		qt, qid, ok = a.ByAlias(q, "AWS::SQS::Queue")
	}
	if !ok {
		return
	}
	a.add(ch, "response-queue", channelpolicy.ResponseQueue, "", a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues"))
	if k := a.responseKey(qt, qid); k != nil {
		a.add(ch, "response-key", channelpolicy.ResponseKey, "", k)
	}
}

// responseKey is the key of response queue qid in qt, when it is a key of
// this app. A key's ARN is unknown before it is deployed: a store in
// another app names the response key by the ARN its channel's output gave.
// An ARN naming a key of the response key's account and region is taken to
// be it (and only for this key).
func (a *assembly) responseKey(qt *template, qid string) *accessmodel.Target {
	k := a.keyTarget(qt, qt.Resources[qid].Properties["KmsMasterKeyId"], "sqs")
	if k != nil && k.Account != "" && qt.Region != "" {
		k.Aliases = append(k.Aliases, fmt.Sprintf("arn:aws:kms:%s:%s:key/*", qt.Region, k.Account))
	}
	return k
}

// rolePrincipal is the principal of a function's role: its ARN from its
// RoleName and stack account, its reference, and its identity policies.
func (a *assembly) rolePrincipal(t *template, roleRef any) *accessmodel.Principal {
	id := a.Ident(t, roleRef)
	ref, ok := a.ResourceOf(id)
	rt, rid := ref.Template, ref.ID
	if !ok || rt.Resources[rid].Type != "AWS::IAM::Role" {
		return &accessmodel.Principal{Principal: iameval.Principal{Aliases: []string{id}, Account: iameval.ARNAccount(id)}}
	}
	p := &accessmodel.Principal{Principal: iameval.Principal{Aliases: withDeployARN([]string{cfnmodel.ResIdent(rt, rid)}, rt, rid), Account: rt.Account, Identity: a.roleStatements(rt, rid),
		Boundary: a.boundaryOf(rt, rid)}}
	if name, _ := rt.Resources[rid].Properties["RoleName"].(string); name != "" {
		rolePath, _ := rt.Resources[rid].Properties["Path"].(string)
		if rolePath == "" {
			rolePath = "/"
		}
		account := rt.Account
		if account == "" {
			account = "*" // an environment-agnostic stack: its role in whatever account it deploys to
		}
		p.Aliases = append(p.Aliases, "arn:aws:iam::"+account+":role"+rolePath+name)
	}
	return p
}

// withDeployARN is aliases with the ARN t's resource id will have once
// deployed, where the template does not name it (cfnmodel.DeployARN): a
// policy over the account, region or a path (arn:aws:kms:*:111111111111:key/*)
// reaches it, a policy naming another resource does not.
func withDeployARN(aliases []string, t *template, id string) []string {
	if arn := cfnmodel.DeployARN(t, id); arn != "" {
		return append(aliases, arn)
	}
	return aliases
}

// policyIndex is which resource policies of a template (of some types) name
// which of its resources, read once: asking every policy of a template about
// every target was quadratic (2,000 stores in one template: 2,000 policies
// asked about each of 2,000 queues).
type policyIndex struct {
	byTarget map[string][]string // a target's logical id → the policies whose references name it
	// loose are the policies whose targets are not all references to the
	// template's own resources (a name, an ARN, a URL, an import, a value
	// the model cannot render): each target asks them itself (Names).
	loose []string
	order map[string]int // each policy's place in the template's order
}

// policyIndexKey is a template's policy types.
type policyIndexKey struct {
	t     *template
	types string
}

// policiesNaming are the policies of t of types that may name resource id
// (a superset, in the template's order: policyTarget asks each with Names).
func (a *assembly) policiesNaming(t *template, id string, types []string, listProp, inlineProp string) []string {
	key := policyIndexKey{t, strings.Join(types, " ")}
	ix := a.policyIndexes[key]
	if ix == nil {
		ix = &policyIndex{byTarget: map[string][]string{}, order: map[string]int{}}
		for i, pid := range t.IDsOf(types...) {
			ix.order[pid] = i
			r := t.Resources[pid]
			v := r.Properties[listProp]
			if r.Type != types[0] {
				v = r.Properties[inlineProp]
			}
			named, loose := []string{}, a.Unrendered(t, v)
			for _, s := range a.Targets(t, v) {
				ref, ok := a.ResourceOf(s)
				rt, rid := ref.Template, ref.ID
				switch {
				case !ok && cfnmodel.IsResourceIdent(s):
					// a reference to nothing the templates hold: it names no target
				case !ok:
					loose = true
				case rt == t:
					named = append(named, rid)
				}
			}
			if loose {
				ix.loose = append(ix.loose, pid)
				continue
			}
			for _, rid := range named {
				if l := ix.byTarget[rid]; len(l) == 0 || l[len(l)-1] != pid {
					ix.byTarget[rid] = append(l, pid)
				}
			}
		}
		if a.policyIndexes == nil {
			a.policyIndexes = map[policyIndexKey]*policyIndex{}
		}
		a.policyIndexes[key] = ix
	}
	if len(ix.loose) == 0 {
		return ix.byTarget[id]
	}
	out := append(append([]string{}, ix.byTarget[id]...), ix.loose...)
	sort.Slice(out, func(i, j int) bool { return ix.order[out[i]] < ix.order[out[j]] })
	return out
}
