package examplestore

import (
	"context"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/contracttest"
)

// TestConformance is what a store team writes: the kit runs every capability
// fixture through the store's implementations.
func TestConformance(t *testing.T) {
	for _, s := range []*Store{Space(), Ledger()} {
		contracttest.Run(t, contracttest.Store{Implementations: s.Implementations(), Subscriber: s.Name()})
	}
}

// TestLegacyLowercaseRows: space's erasure by address also matches the fully
// lowercased form its older rows hold; the contract's key stays addressKey.
func TestLegacyLowercaseRows(t *testing.T) {
	s := Space()
	kelvinKey := contract.AddressKey("\u212Aelvin@Example.com") // Kelvin sign kept
	s.byAddress["kelvin@example.com"] = 1                       // an old row, lowercased by Unicode rules
	erase := s.Implementations()[contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAddress}]
	if _, err := erase(context.Background(), contract.Request{Type: contract.TypeErase, KeyKind: contract.KeyAddress, Key: kelvinKey}, 1); err != nil {
		t.Fatal(err)
	}
	if s.byAddress["kelvin@example.com"] != 0 {
		t.Fatal("the legacy lowercased row survived")
	}
}

// TestScaleStoreNames: a scale run's store (erasure:extraStores) is served
// by the example handler under its own name; any other unknown name is not.
func TestScaleStoreNames(t *testing.T) {
	for name, want := range map[string]bool{
		"store-001": true, "orders-0000042": true, "wishlist-000089": true,
		"space": false, "orders": false, "orders-": false, "-001": false, "orders-00x1": false, "Orders-001": false,
	} {
		if got := ByName(name) != nil && name != "space"; got != want {
			t.Errorf("ByName(%q) serves a scale store: %v, want %v", name, got, want)
		}
		if s := ByName(name); want && s.Name() != name {
			t.Errorf("ByName(%q) answers as %q", name, s.Name())
		}
	}
}
