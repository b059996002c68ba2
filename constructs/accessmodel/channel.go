package accessmodel

import (
	"fmt"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
)

// Channel is what the model is told of an app: the resources on the
// channel's path with their policies, the app's roles with their identity
// policies, and what the channel's constructs declare. The check reads it
// from the templates (erasurecheck); the model decides every principal
// against it and reads nothing else.
type Channel struct {
	// Targets are the resources on the path, in the order found, each
	// with its Name, Kind, Store and Admins set (Add).
	Targets []*Target
	// Handlers are each store's handler role, by the store's name.
	Handlers map[string]*Principal
	// Roles are the app's other roles, each with its Name
	// (role/<stack>/<id>).
	Roles []*Principal
	// Declared is what the channel's constructs declare of its principals.
	Declared Declared
	// TopicAccount and TopicRegion are the erasure topic's ("" when
	// unknown); TopicIdents are the topics' ARNs or references.
	TopicAccount, TopicRegion string
	TopicIdents               []string

	byName map[string]*Target
}

// Add puts t on the path; a nil t is no target (a key the app does not
// hold). A target whose name is already on the path is not added: Add
// returns a *DuplicateTargetError, so no caller loses one silently.
func (c *Channel) Add(t *Target) error {
	if t == nil {
		return nil
	}
	if c.byName == nil {
		c.byName = map[string]*Target{}
	}
	if _, taken := c.byName[t.Name]; taken {
		return &DuplicateTargetError{Name: t.Name}
	}
	c.byName[t.Name] = t
	c.Targets = append(c.Targets, t)
	return nil
}

// DuplicateTargetError refuses a second target of one name: each cell of
// the matrix names its target, so two targets of one name would be one.
type DuplicateTargetError struct {
	// Name is the target's name (a kind and a store's or stack's name).
	Name string
}

func (e *DuplicateTargetError) Error() string {
	return fmt.Sprintf("accessmodel: a target named %q is already on the channel", e.Name)
}

// Target is the target of that name, or nil.
func (c *Channel) Target(name string) *Target { return c.byName[name] }

// Options choose what the matrix asks.
type Options struct {
	// EveryAccount asks the witnesses of every account rather than one
	// account of each class (slower; for the cross-check of the classes).
	EveryAccount bool
	// Only, when set, keeps only the cells of the kinds and actions it
	// admits (the check's lockdown cells); nil asks every cell.
	Only func(channelpolicy.Kind, string) bool
}

// New decides every principal class of ch against every action on every
// target, with the request context ctx.
func New(ch *Channel, ctx Context, opts Options) *Matrix {
	m := &Matrix{ctx: ctx, principals: map[string]*Principal{}, targets: map[string]*Target{}, endpointAccounts: map[string]bool{}, everything: EverythingPolicy(),
		handlers: map[string]*Principal{}, endpointOf: map[int]*endpoint{}, plain: map[int]bool{}, direct: map[int]bool{}, decl: ch.Declared,
		channelAccount: ch.TopicAccount, channelRegion: ch.TopicRegion, topicIdents: ch.TopicIdents, only: opts.Only, everyAccount: opts.EveryAccount}
	if m.decl.Roster == nil {
		m.decl.Roster = map[string]bool{}
	}
	if m.decl.RosterAccounts == nil {
		m.decl.RosterAccounts = map[string]bool{}
	}
	for _, t := range ch.Targets {
		m.targets[t.Name] = t
		m.order = append(m.order, t.Name)
	}
	for name, h := range ch.Handlers {
		m.handlers[name] = h
	}
	m.findPrincipals(ch.Roles)
	m.evaluateAll()
	return m
}

// Target is the target of that name in the matrix (a Cell's Resource), or nil.
func (m *Matrix) Target(name string) *Target { return m.targets[name] }

// Declared is what the channel declares of its principals, as the matrix
// judged its cells by.
func (m *Matrix) Declared() Declared { return m.decl }

// Principal is the principal of that name in the matrix (a Cell's
// Principal), or nil.
func (m *Matrix) Principal(name string) *Principal { return m.principals[name] }
