package erasure

import (
	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/contract"
)

// RosterStore is one store on the channel's roster: who may answer.
type RosterStore struct {
	// Name is the store's subscriber name (ErasureSubscriberProps.Name).
	Name string
	// Account is the store's AWS account id; "" means the channel's account.
	Account string
	// Region is the region of the store's queue; "" means the channel's.
	Region string
}

// rosterHandlers is the ARN pattern of every roster store's handler role:
// the handler path (contract.HandlerRolePath) in any account. The policies
// that name it say once, beside it, which accounts are the roster's.
func rosterHandlers() string {
	return contract.HandlerRolePattern(partition(), "*")
}

// checkRoster lists every problem of a roster.
func checkRoster(stores []RosterStore, legacyAccounts []string) problem.List {
	var l problem.List
	seen := map[string]bool{}
	for i, s := range stores {
		path := problem.Root("ErasureChannel").Child("stores").Index(i)
		if !contract.IsSubscriberName(s.Name) {
			l.Add(path.Child("name"), problem.Invalid, "%q is not a subscriber name: 1 to 64 of a-z, 0-9 and -, starting with a letter", s.Name)
		} else if seen[s.Name] {
			l.Add(path.Child("name"), problem.Invalid, "%q is on the roster twice", s.Name)
		}
		seen[s.Name] = true
		if s.Account != "" && !isAccountID(s.Account) {
			l.Add(path.Child("account"), problem.Invalid, "%q is not a 12-digit AWS account id", s.Account)
		}
	}
	if len(stores) > 0 && len(legacyAccounts) > 0 {
		l.Add(problem.Root("ErasureChannel").Child("storeAccounts"), problem.Invalid, "give the roster (Stores) alone: the store accounts are derived from it, and an account listed without its stores would let every principal in it answer")
	}
	return l
}

// roster is the channel's roster computed once, for the locks, the
// admission and the ledger to read: its stores, their accounts and what
// follows from the channel's own account.
type roster struct {
	stores []RosterStore
	// channelAccount is the channel stack's account (a token for an
	// environment-agnostic stack, which knowsChannelAccount says).
	channelAccount      string
	knowsChannelAccount bool
	// accounts are the stores' accounts ("" read as the channel's), once
	// each, in roster order; others those that are not the channel's.
	accounts, others []string
	// inChannelAccount: a store is in the channel's own account.
	inChannelAccount bool
	names            map[string]bool
}

// newRoster is the roster of stores for a channel in channelAccount.
func newRoster(stores []RosterStore, channelAccount string) roster {
	r := roster{stores: stores, channelAccount: channelAccount, knowsChannelAccount: !isToken(&channelAccount), names: map[string]bool{}}
	seen := map[string]bool{}
	for _, s := range stores {
		r.names[s.Name] = true
		a := s.Account
		if a == "" {
			a = channelAccount
		}
		if seen[a] {
			continue
		}
		seen[a] = true
		r.accounts = append(r.accounts, a)
		if a == channelAccount {
			r.inChannelAccount = true
		} else {
			r.others = append(r.others, a)
		}
	}
	return r
}

// has says whether name is a store on the roster.
func (r roster) has(name string) bool { return r.names[name] }
