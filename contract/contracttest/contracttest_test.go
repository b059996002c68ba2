package contracttest

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
)

func fixed(outcome string) storehandler.Func {
	return func(context.Context, contract.Request, storehandler.Pass) (string, error) { return outcome, nil }
}

// goodStore implements every pair with its first allowed outcome.
func goodStore() map[contract.Pair]storehandler.Func {
	m := map[contract.Pair]storehandler.Func{}
	for _, p := range contract.ErasureCapabilityFixtures().Pairs {
		m[p.Pair] = fixed(p.ImplementedOutcomes[0])
	}
	return m
}

func TestConformingStoresPass(t *testing.T) {
	Run(t, Store{Implementations: goodStore()})
	Run(t, Store{Implementations: nil}) // a store that implements nothing answers NOT_APPLICABLE everywhere
	partial := goodStore()
	delete(partial, contract.Pair{Type: contract.TypeClassify, KeyKind: contract.KeyAddress})
	Run(t, Store{Implementations: partial, Subscriber: "partial"})
}

func TestTheKitCatchesBrokenStores(t *testing.T) {
	refile := contract.Pair{Type: contract.TypeRefile, KeyKind: contract.KeyAddress}
	check := contract.Pair{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}
	erase := contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAddress}
	for _, tc := range []struct {
		name  string
		mod   func(m map[contract.Pair]storehandler.Func)
		check string
	}{
		{"wrong outcome for REFILE", func(m map[contract.Pair]storehandler.Func) { m[refile] = fixed("DONE") }, "answer"},
		{"implemented but NOT_APPLICABLE", func(m map[contract.Pair]storehandler.Func) { m[check] = fixed("NOT_APPLICABLE") }, "answer"},
		{"store call fails", func(m map[contract.Pair]storehandler.Func) {
			m[erase] = func(context.Context, contract.Request, storehandler.Pass) (string, error) {
				return "", fmt.Errorf("boom")
			}
		}, "answer"},
		{"logs the key with fmt", func(m map[contract.Pair]storehandler.Func) {
			m[erase] = func(_ context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
				fmt.Println("erasing", r.Key)
				return "DONE", nil
			}
		}, "logs"},
		{"logs the requestId with log", func(m map[contract.Pair]storehandler.Func) {
			m[check] = func(_ context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
				log.Printf("check %s", r.RequestID)
				return "HOLDS_NONE", nil
			}
		}, "logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goodStore()
			tc.mod(m)
			fails := Check(Store{Implementations: m})
			found := false
			for _, f := range fails {
				if f.Check == tc.check {
					found = true
				}
				for _, p := range contract.ErasureCapabilityFixtures().Pairs {
					for _, v := range []string{p.Request.Key, p.Request.RequestID, p.Request.From, p.Request.To, p.Request.AccountID} {
						if v != "" && strings.Contains(f.String(), v) {
							t.Errorf("a failure quotes a request value: %s", f)
						}
					}
				}
			}
			if !found {
				t.Fatalf("no %q failure in %v", tc.check, fails)
			}
		})
	}
}
