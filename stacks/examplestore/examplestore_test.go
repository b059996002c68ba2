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
