package soak

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/stacks"
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
	led, err := Run(context.Background(), emu, Config{Stores: *stores, Requests: *requests, Seed: *seed, Window: *window, Access: accessOf(t, *stores)})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(led.String())
	for _, v := range led.Violations {
		t.Error(v)
	}
	if led.DeniedCalls == nil {
		t.Fatal("the soak did not run behind the access gate")
	}
	if led.Answered == 0 || led.Faults["handler-error"] == 0 || led.Malformed == 0 || led.Expired == 0 {
		t.Fatalf("the soak did no work or injected no fault: %+v", led)
	}
}

// accessOf synthesizes the CDK app with the soak's stores on the roster (no
// example stores, no cdk-nag: the policies are the same) and returns its
// access matrix, which the soak's gate decides every call with.
func accessOf(t *testing.T, n int) local.Decider {
	t.Helper()
	dir := t.TempDir()
	props, err := stacks.LocalAppProps("../../cdk.json", dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := *props.Context
	ctx["erasure:examples"], ctx["erasure:nag"], ctx["erasure:extraStores"] = false, false, n
	if _, err := stacks.Synthesize(props); err != nil {
		t.Fatal(err)
	}
	m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Failing(); len(f) > 0 {
		t.Fatalf("the soak app's access matrix does not hold: %+v", f)
	}
	return m
}
