package plan

import "github.com/linn-cloud/erasure-channel/constructs/channelpolicy"

// A Locked resource: the resource (a value the applier holds, or a batch's
// result), the ARNs a statement names it by, and what its operation hands
// the applier: its metadata entries and its statements, in order. Every
// channel resource is locked the same way: administrators alone may take an
// action off the data path, and each data-path action only the principals
// of its path (channelpolicy).
type Locked struct {
	resource  any
	key       bool // a KMS key: its statements go to its key policy
	resources []string
	metadata  []any // [key, value] pairs
	pending   []any // statements, as IAM JSON
}

// LockedResource is a queue, topic or bucket named by arns in its policy.
func LockedResource(resource any, arns ...string) *Locked {
	return &Locked{resource: resource, resources: arns}
}

// LockedKey is a KMS key: in a key policy, "*" is this key.
func LockedKey(key any) *Locked {
	return &Locked{resource: key, key: true, resources: []string{"*"}}
}

// Op is what the applier carries out: the metadata, then each pending
// statement through the resource's addToResourcePolicy (CDK creates a
// queue's, topic's or bucket's policy on the first). It empties pending.
func (l *Locked) Op() map[string]any {
	op := map[string]any{"op": "lock", "resource": l.resource, "key": l.key, "metadata": l.metadata, "statements": l.pending}
	if l.metadata == nil {
		op["metadata"] = []any{}
	}
	if l.pending == nil {
		op["statements"] = []any{}
	}
	l.metadata, l.pending = nil, nil
	return op
}

// Mark adds a metadata entry to the resource's CfnResource (after those
// before it).
func (l *Locked) Mark(key string, value any) { l.metadata = append(l.metadata, []any{key, value}) }

// Deny adds a Deny for every principal, of actions (or, with notActions, of
// every action but those), when every condition holds.
func (l *Locked) Deny(sid string, actions, notActions []string, conditions map[string]any) {
	st := map[string]any{"Sid": sid, "Effect": "Deny", "Principal": "*", "Resource": AnyList(l.resources)}
	if notActions != nil {
		st["NotAction"] = AnyList(notActions)
	} else {
		st["Action"] = AnyList(actions)
	}
	if len(conditions) > 0 {
		st["Condition"] = conditions
	}
	l.pending = append(l.pending, st)
}

// Allow adds an Allow for every principal, of actions, when every condition
// holds: the admissions other locks then narrow.
func (l *Locked) Allow(sid string, actions []string, conditions map[string]any) {
	st := map[string]any{"Sid": sid, "Effect": "Allow", "Principal": "*", "Resource": AnyList(l.resources), "Action": AnyList(actions)}
	if len(conditions) > 0 {
		st["Condition"] = conditions
	}
	l.pending = append(l.pending, st)
}

// AdministeredBy marks the resource as of kind and lets only admins take an
// action outside data (the resource's data-path actions).
func (l *Locked) AdministeredBy(kind channelpolicy.Kind, admins []string, data []string) {
	l.Mark(channelpolicy.KindMetadataKey, string(kind))
	l.Mark(channelpolicy.AdministratorsMetadataKey, AnyList(admins))
	l.Deny("OnlyAdministratorsAdminister", nil, data, NotLike(admins))
}

// OnlyFrom denies actions to every principal whose ARN is not one of
// principals, unless (for a service acting for one of sources) the request's
// aws:SourceArn is one of sources.
func (l *Locked) OnlyFrom(sid string, actions, principals, sources []string) {
	cond := map[string]any{"ArnNotLike": map[string]any{"aws:PrincipalArn": AnyList(principals)}}
	if len(sources) > 0 {
		cond["ArnNotLike"].(map[string]any)["aws:SourceArn"] = AnyList(sources)
	}
	l.Deny(sid, actions, nil, cond)
}

// NoOne denies actions to every principal.
func (l *Locked) NoOne(sid string, actions []string) { l.Deny(sid, actions, nil, nil) }

// NotLike is the condition that the principal's ARN is none of arns.
func NotLike(arns []string) map[string]any {
	return map[string]any{"ArnNotLike": map[string]any{"aws:PrincipalArn": AnyList(arns)}}
}
