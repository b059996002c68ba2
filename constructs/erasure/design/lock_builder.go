package design

import "github.com/linn-cloud/erasure-channel/constructs/channelpolicy"

// A LockBuilder builds one resource's Lock: the resource, the ARNs a statement
// names it by, its metadata entries and its statements, in order. Every
// channel resource is locked the same way: administrators alone may take an
// action off the data path, and each data-path action only the principals
// of its path (channelpolicy).
type LockBuilder struct {
	lock      Lock
	resources []string
}

// ResourceLock builds the lock of a queue, topic or bucket named by arns in
// its policy.
func ResourceLock(resource Name, arns ...string) *LockBuilder {
	return &LockBuilder{lock: Lock{Resource: resource}, resources: arns}
}

// KeyLock builds the lock of a KMS key: in a key policy, "*" is this key.
func KeyLock(key Name) *LockBuilder {
	return &LockBuilder{lock: Lock{Resource: key, KeyPolicy: true}, resources: []string{"*"}}
}

// Build is the Lock the applier carries out: the metadata, then each
// statement. It empties the builder.
func (l *LockBuilder) Build() Lock {
	out := l.lock
	if out.Metadata == nil {
		out.Metadata = []MetadataEntry{}
	}
	if out.Statements == nil {
		out.Statements = []Statement{}
	}
	l.lock.Metadata, l.lock.Statements = nil, nil
	return out
}

// MarkText adds a metadata entry of text to the resource.
func (l *LockBuilder) MarkText(key, value string) {
	l.lock.Metadata = append(l.lock.Metadata, MetadataEntry{Key: key, Text: &value})
}

// MarkFlag adds a metadata entry of a boolean to the resource.
func (l *LockBuilder) MarkFlag(key string, value bool) {
	l.lock.Metadata = append(l.lock.Metadata, MetadataEntry{Key: key, Flag: &value})
}

// MarkCount adds a metadata entry of a number to the resource.
func (l *LockBuilder) MarkCount(key string, value int) {
	l.lock.Metadata = append(l.lock.Metadata, MetadataEntry{Key: key, Count: &value})
}

// MarkList adds a metadata entry of a list of strings to the resource.
func (l *LockBuilder) MarkList(key string, values []string) {
	l.lock.Metadata = append(l.lock.Metadata, MetadataEntry{Key: key, List: append([]string{}, values...)})
}

// Deny adds a Deny for every principal, of actions (or, with notActions, of
// every action but those), when every condition holds.
func (l *LockBuilder) Deny(sid string, actions, notActions []string, conditions Conditions) {
	st := Statement{Sid: sid, Effect: Deny, Principal: Everyone, Resource: List(l.resources...).Ref()}
	if notActions != nil {
		st.NotAction = List(notActions...).Ref()
	} else {
		st.Action = List(actions...).Ref()
	}
	if len(conditions) > 0 {
		st.Condition = conditions
	}
	l.lock.Statements = append(l.lock.Statements, st)
}

// Allow adds an Allow for every principal, of actions, when every condition
// holds: the admissions other locks then narrow.
func (l *LockBuilder) Allow(sid string, actions []string, conditions Conditions) {
	st := Statement{Sid: sid, Effect: Allow, Principal: Everyone, Resource: List(l.resources...).Ref(), Action: List(actions...).Ref()}
	if len(conditions) > 0 {
		st.Condition = conditions
	}
	l.lock.Statements = append(l.lock.Statements, st)
}

// AdministeredBy marks the resource as of kind and lets only admins take an
// action outside data (the resource's data-path actions).
func (l *LockBuilder) AdministeredBy(kind channelpolicy.Kind, admins []string, data []string) {
	l.MarkText(channelpolicy.KindMetadataKey, string(kind))
	l.MarkList(channelpolicy.AdministratorsMetadataKey, admins)
	l.Deny("OnlyAdministratorsAdminister", nil, data, NotLike(admins))
}

// OnlyFrom denies actions to every principal whose ARN is not one of
// principals, unless (for a service acting for one of sources) the request's
// aws:SourceArn is one of sources.
func (l *LockBuilder) OnlyFrom(sid string, actions, principals, sources []string) {
	cond := Conditions{"ArnNotLike": {"aws:PrincipalArn": List(principals...)}}
	if len(sources) > 0 {
		cond["ArnNotLike"]["aws:SourceArn"] = List(sources...)
	}
	l.Deny(sid, actions, nil, cond)
}

// NoOne denies actions to every principal.
func (l *LockBuilder) NoOne(sid string, actions []string) { l.Deny(sid, actions, nil, nil) }

// NotLike is the condition that the principal's ARN is none of arns.
func NotLike(arns []string) Conditions {
	return Conditions{"ArnNotLike": {"aws:PrincipalArn": List(arns...)}}
}
