package test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// BenchmarkRoundTrip is the end-to-end round trip on the emulator: publish a
// CHECK and wait until all N stores have answered on the response queue, each
// store running the real adapter behind a poller.
//
//	go test -run '^$' -bench RoundTrip -benchtime 20x ./test
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		b.Run(fmt.Sprintf("stores=%d", n), func(b *testing.B) {
			e := sharedEmulator(b)
			c := scaledConstants(b)
			cl := local.NewClients(e.Endpoint, e.Region)
			spec := local.Spec{Prefix: fmt.Sprintf("bench%d-", n), Constants: c}
			var names []string
			for i := 0; i < n; i++ {
				name := fmt.Sprintf("store-%02d", i)
				names = append(names, name)
				spec.Stores = append(spec.Stores, local.StoreSpec{Name: name, Settings: timing.Defaults(c)})
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := local.Create(ctx, cl, spec)
			if err != nil {
				b.Fatal(err)
			}
			check := contract.Pair{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}
			handlers := map[string]local.HandlerFunc{}
			for _, name := range names {
				h, err := ch.NewHandler(name, map[contract.Pair]storehandler.Func{check: func(context.Context, contract.Request, storehandler.Pass) (string, error) {
					return "HOLDS_NONE", nil
				}}, local.HandlerOptions{})
				if err != nil {
					b.Fatal(err)
				}
				handlers[name] = h.Handle
			}
			collector := publisher.NewCollector()
			defer ch.Serve(ctx, e.Region, handlers, collector, slog.New(slog.DiscardHandler))()
			pub := publisher.New(cl.SNS, ch.TopicARN, publisher.WithConstants(c))
			round := func(i int) {
				req, err := pub.PublishRound(ctx, publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: "acct-1", CreatedAt: time.Now()})
				if err != nil {
					b.Fatal(err)
				}
				key := publisher.RoundKey{RequestID: req.RequestID}
				deadline := time.Now().Add(30 * time.Second)
				for !collector.Status(key, names).Complete() {
					if time.Now().After(deadline) {
						b.Fatalf("round %d incomplete", i)
					}
					select {
					case <-collector.Changed():
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
			round(-1) // warm up: the first round waits for every poller's first long poll
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				round(i)
			}
		})
	}
}
