package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// BenchmarkRecordAnswer records b.N distinct answers on the DynamoDB emulator
// with 1, 8 and 32 concurrent readers (each answer: the request read, the
// round read, the conditional write, the completion query) and reports
// answers recorded per second.
func BenchmarkRecordAnswer(b *testing.B) {
	for _, readers := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			ctx := context.Background()
			clk := newClock()
			l, _ := newLedger(b, dynamo(b), clk.Now)
			pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now))
			stores := make([]string, 100)
			for i := range stores {
				stores[i] = fmt.Sprintf("store-%03d", i)
			}
			// One request per 100 answers: every store of a 100-store roster answers it.
			var reqs []contract.Request
			for i := 0; i*len(stores) < b.N; i++ {
				req := pub.NewErase(contract.KeyAccount, fmt.Sprintf("acct-%d", i))
				if _, err := l.Publish(ctx, &sent{}, req, stores); err != nil {
					b.Fatal(err)
				}
				reqs = append(reqs, req)
			}
			work := make(chan ledger.Answer, b.N)
			for i := 0; i < b.N; i++ {
				st := stores[i%len(stores)]
				work <- ledger.Answer{Response: contract.AnswerFor(reqs[i/len(stores)], st, "DONE"), Sender: "AROAEXAMPLE:" + contract.HandlerName(st), MessageID: fmt.Sprint(i)}
			}
			close(work)
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for a := range work {
						if rec, err := l.RecordAnswer(ctx, a); err != nil || rec.Result != ledger.Recorded {
							b.Errorf("%v %v", rec, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "answers/s")
		})
	}
}

// BenchmarkSweep10k sweeps a ledger of 10,000 open requests: none due (the
// sweeper's steady state: 48 index queries), and all expired (each
// re-broadcast: reads, a round write, a conditional update, a publish and a
// publish mark).
func BenchmarkSweep10k(b *testing.B) {
	const open = 10000
	ctx := context.Background()
	clk := newClock()
	l, _ := newLedger(b, dynamo(b), clk.Now)
	pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now))
	roster := []string{"space", "bitmaps"}
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if _, err := l.Publish(ctx, &sent{}, pub.NewErase(contract.KeyAccount, fmt.Sprintf("acct-%d", i)), roster); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := range open {
		work <- i
	}
	close(work)
	wg.Wait()
	b.Run("none-due", func(b *testing.B) {
		for range b.N {
			if rep, err := l.Sweep(ctx, &sent{}); err != nil || rep.Rebroadcast != 0 {
				b.Fatal(rep, err)
			}
		}
	})
	b.Run("all-expired", func(b *testing.B) {
		for range b.N {
			clk.Advance(contract.Channel().ExpiryPeriod() + time.Second)
			out := &sent{}
			start := time.Now()
			rep, err := l.Sweep(ctx, out)
			if err != nil || rep.Rebroadcast+rep.Exhausted != open {
				b.Fatal(rep, err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s/sweep")
		}
	})
}
