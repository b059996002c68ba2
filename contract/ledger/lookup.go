package ledger

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// RoleIDResolver reads a roster store's handler role's unique id in the
// store's account (account "" is the ledger's own): on AWS through the lookup
// role the store's own stack creates (contract.RosterLookupRoleARN), which
// may read that one role and nothing else.
type RoleIDResolver interface {
	HandlerRoleID(ctx context.Context, store, account string) (string, error)
}

// ErrNoHandlerRole is a resolver's answer that the store's account holds no
// lookup role or no handler role (yet): the store has not joined, and its
// answers are refused. Any other error is passing (a throttle, a network
// fault): the answer is kept for another read, never refused for it.
var ErrNoHandlerRole = errors.New("ledger: the store's handler role cannot be found")

// RoleLookup authenticates the answers of roster stores whose role id the
// roster does not hold: it resolves the id in the store's account the first
// time one of its answers arrives, keeps it, and resolves again (at most once
// per RetryAfter for each store) when the store has no id yet or an answer
// comes from another role, so that a store joins, and a redeployed role is
// learned, with the store's own deploy. It never admits a sender that is not
// "<the resolved id>:<the store's function name>".
type RoleLookup struct {
	Resolver RoleIDResolver
	// RetryAfter bounds how often one store's id is resolved (default: a minute).
	RetryAfter time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu   sync.Mutex
	seen map[string]lookedUp
}

type lookedUp struct {
	account, id string
	err         error
	at          time.Time
}

// allows says whether senderID is store's handler, resolving its role id in
// account when needed. A passing failure to resolve is returned as an error.
func (l *RoleLookup) allows(ctx context.Context, store, account, senderID string) (bool, error) {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	retry := l.RetryAfter
	if retry <= 0 {
		retry = time.Minute
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]lookedUp{}
	}
	want := func(id string) bool {
		return id != "" && senderID == contract.HandlerSenderID(id, contract.HandlerName(store))
	}
	prev, ok := l.seen[store]
	ok = ok && prev.account == account // a store moved accounts is looked up anew
	if ok && want(prev.id) {
		return true, nil
	}
	if ok && now().Sub(prev.at) < retry {
		return false, transient(prev.err)
	}
	id, err := l.Resolver.HandlerRoleID(ctx, store, account)
	if err != nil || !contract.IsRoleID(id) {
		id = prev.id // keep what was known until the store's role is found again
		if err == nil {
			err = ErrNoHandlerRole
		}
	}
	l.seen[store] = lookedUp{account: account, id: id, err: err, at: now()}
	if want(id) {
		return true, nil
	}
	return false, transient(err)
}

// transient is err when it is a passing failure, nil when the store's role
// is definitely not found (or was found and is not the sender's).
func transient(err error) error {
	if err == nil || errors.Is(err, ErrNoHandlerRole) {
		return nil
	}
	return err
}

// authenticates says whether senderID may answer for store: by the roster's
// role id, or, for a store the roster names without one, by the id lookup
// resolves in the store's account.
func (r *Reader) authenticates(ctx context.Context, store, senderID string) (bool, error) {
	want, ok := r.Roster[store]
	if !ok {
		return false, nil
	}
	if want.RoleID != "" || r.Lookup == nil {
		return r.Roster.Allows(store, senderID), nil
	}
	return r.Lookup.allows(ctx, store, r.Accounts[store], senderID)
}

// RosterOf is the reader's roster from the ledger's roster entries: each
// store's handler by role id (when the roster holds it) and function name,
// and each store's account.
func RosterOf(entries []contract.LedgerRosterEntry) (publisher.Roster, map[string]string) {
	roster, accounts := publisher.Roster{}, map[string]string{}
	for _, e := range entries {
		roster[e.Store] = publisher.Sender{RoleID: e.RoleID, Session: contract.HandlerName(e.Store)}
		if e.Account != "" {
			accounts[e.Store] = e.Account
		}
	}
	return roster, accounts
}
