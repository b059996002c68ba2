// Package examplestore holds the example stores of the project: small
// in-memory stores that implement some (type, keyKind) pairs through the
// store handler adapter. The example Lambda (cmd/example-store) and
// erasurectl's local channel run them; their conformance test shows a store
// team the ten lines the kit needs.
package examplestore

import (
	"context"
	"strings"
	"sync"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
)

// Store is an in-memory store: rows counted per account id and per address.
type Store struct {
	mu        sync.Mutex
	name      string
	byAccount map[string]int
	byAddress map[string]int
	pairs     []contract.Pair
	// legacyLowercase: this store once wrote addresses fully lowercased, so an
	// erasure by address also matches that form (the store's own second match).
	legacyLowercase bool
}

// Sample keys every example store holds data for.
const (
	SampleAccount = "acct-0042"
	SampleAddress = "jane.doe@example.com"
)

// Space holds account- and address-keyed rows and implements every pair,
// including REFILE; some of its rows were written fully lowercased.
func Space() *Store {
	s := newStore("space", true)
	s.pairs = []contract.Pair{
		{Type: contract.TypeErase, KeyKind: contract.KeyAccount}, {Type: contract.TypeErase, KeyKind: contract.KeyAddress},
		{Type: contract.TypeRefile, KeyKind: contract.KeyAddress},
		{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}, {Type: contract.TypeCheck, KeyKind: contract.KeyAddress},
		{Type: contract.TypeClassify, KeyKind: contract.KeyAccount}, {Type: contract.TypeClassify, KeyKind: contract.KeyAddress},
	}
	return s
}

// Ledger holds account-keyed rows only: every address-keyed request is
// answered NOT_APPLICABLE by the adapter.
func Ledger() *Store {
	s := newStore("ledger", false)
	s.pairs = []contract.Pair{
		{Type: contract.TypeErase, KeyKind: contract.KeyAccount},
		{Type: contract.TypeCheck, KeyKind: contract.KeyAccount},
		{Type: contract.TypeClassify, KeyKind: contract.KeyAccount},
	}
	return s
}

// ByName returns the example store with that subscriber name, or nil.
func ByName(name string) *Store {
	switch name {
	case "space":
		return Space()
	case "ledger":
		return Ledger()
	}
	if IsScaleStoreName(name) {
		return ScaleStore(name)
	}
	return nil
}

// IsScaleStoreName says whether name is a scale run's store
// (erasure:extraStores: store-001, orders-0000042, …): a subscriber name
// ending in a dash and digits.
func IsScaleStoreName(name string) bool {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 || !contract.IsSubscriberName(name) {
		return false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ScaleStore is a scale run's store: account-keyed rows like Ledger, under
// its own name.
func ScaleStore(name string) *Store {
	s := Ledger()
	s.name = name
	return s
}

func newStore(name string, legacy bool) *Store {
	return &Store{name: name, legacyLowercase: legacy,
		byAccount: map[string]int{SampleAccount: 3},
		byAddress: map[string]int{SampleAddress: 2}}
}

// Name is the store's subscriber name.
func (s *Store) Name() string { return s.name }

// Implementations is what the store's Lambda passes to storehandler.Start.
func (s *Store) Implementations() map[contract.Pair]storehandler.Func {
	m := map[contract.Pair]storehandler.Func{}
	for _, p := range s.pairs {
		switch p.Type {
		case contract.TypeErase:
			m[p] = s.erase
		case contract.TypeRefile:
			m[p] = s.refile
		default:
			m[p] = s.holdings
		}
	}
	return m
}

// addressForms are the keys an address may be stored under here: its
// addressKey, and for a store with legacy rows the fully lowercased form.
func (s *Store) addressForms(key string) []string {
	forms := []string{key}
	if lower := strings.ToLower(key); s.legacyLowercase && lower != key {
		forms = append(forms, lower)
	}
	return forms
}

func (s *Store) erase(ctx context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.KeyKind == contract.KeyAccount {
		delete(s.byAccount, r.Key)
	} else {
		for _, k := range s.addressForms(r.Key) {
			delete(s.byAddress, k)
		}
	}
	return string(contract.OutcomeDone), nil
}

func (s *Store) refile(ctx context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	moved := 0
	for _, k := range s.addressForms(r.From) {
		moved += s.byAddress[k]
		delete(s.byAddress, k)
	}
	if moved == 0 {
		return string(contract.OutcomeNoneOwned), nil
	}
	s.byAddress[r.To] += moved
	return string(contract.OutcomeMoved), nil
}

func (s *Store) holdings(ctx context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if r.KeyKind == contract.KeyAccount {
		n = s.byAccount[r.Key]
	} else {
		for _, k := range s.addressForms(r.Key) {
			n += s.byAddress[k]
		}
	}
	if n > 0 {
		return string(contract.AnswerHoldsData), nil
	}
	return string(contract.AnswerHoldsNone), nil
}

// Holds reports whether the store still holds rows under an account id or
// address (for tests and the local demo).
func (s *Store) Holds(kind contract.KeyKind, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind == contract.KeyAccount {
		return s.byAccount[key] > 0
	}
	for _, k := range s.addressForms(key) {
		if s.byAddress[k] > 0 {
			return true
		}
	}
	return false
}
