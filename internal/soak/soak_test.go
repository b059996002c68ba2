package soak

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

var (
	stores   = flag.Int("soak.stores", 10, "stores on the channel")
	requests = flag.Int("soak.requests", 100, "valid requests published (every store gets each); make soak uses 1000")
	seed     = flag.Uint64("soak.seed", 1, "fault and mix seed")
	window   = flag.Int("soak.window", 100, "requests in flight at most")
)

// TestSoak runs the channel under load with faults everywhere and fails on
// any violation of the invariant, printing the ledger. make test runs a short
// one (100 requests to 10 stores); make soak the long ones.
func TestSoak(t *testing.T) {
	emu, err := emulator.Start(context.Background(), emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer emu.Stop()
	led, err := Run(context.Background(), emu, Config{Stores: *stores, Requests: *requests, Seed: *seed, Window: *window})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(led.String())
	for _, v := range led.Violations {
		t.Error(v)
	}
	if led.Answered == 0 || led.Faults["handler-error"] == 0 || led.Malformed == 0 || led.Expired == 0 {
		t.Fatalf("the soak did no work or injected no fault: %+v", led)
	}
}
