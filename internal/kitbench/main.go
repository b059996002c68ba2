// Command kitbench measures each handler kit beside a bare handler of the
// same runtime, under the Lambda emulator (internal/lambdaemu) with the
// registry's runtime interface client: the cold start (the process's init
// to its first /next, plus the first invocation) and the warm cost per
// record (a batch of ten). Both handlers create their SDK's SQS client at
// init and read every record's body; the records are expired requests, which
// the kit parses, validates and consumes without a call, so neither reaches
// SQS. The runs alternate between the two, so a noisy machine slows both.
//
//	go run ./internal/kitbench -rounds 9 SPEC...   (tools/bench-kits builds the folders)
//
// Each SPEC is RUNTIME,KITHANDLER,KITDIR,BAREHANDLER,BAREDIR.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
)

func main() {
	rounds := flag.Int("rounds", 9, "cold starts of each handler")
	cache := flag.String("cache", "", "the runtime interface clients' cache (erasurectl conform's --cache)")
	flag.Parse()
	if *cache == "" {
		dir, _ := os.UserCacheDir()
		*cache = filepath.Join(dir, "erasure-conform")
	}
	fmt.Printf("%-12s %-6s %12s %12s %8s %16s %16s %8s\n", "runtime", "", "cold kit", "cold bare", "ratio", "per record kit", "per record bare", "ratio")
	for _, spec := range flag.Args() {
		parts := strings.Split(spec, ",")
		if len(parts) != 5 {
			fmt.Fprintln(os.Stderr, "kitbench: want RUNTIME,KITHANDLER,KITDIR,BAREHANDLER,BAREDIR, got", spec)
			os.Exit(2)
		}
		if err := bench(parts[0], [2]string{parts[1], parts[3]}, parts[2], parts[4], *rounds, *cache); err != nil {
			fmt.Fprintln(os.Stderr, "kitbench:", err)
			os.Exit(1)
		}
	}
}

// batch is ten expired CHECK requests as Lambda's SQS event source hands them over.
func batch() []byte {
	p := contract.ErasureCapabilityFixtures().Pairs[5]
	req := p.Restamped(time.Now(), contract.Channel())
	req.ExpiresAt = time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	body, _ := contract.EncodeRequest(req)
	var ev events.SQSEvent
	for i := 0; i < 10; i++ {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprintf("m%d", i), Body: string(body), EventSource: "aws:sqs"})
	}
	b, _ := json.Marshal(ev)
	return b
}

type sample struct{ cold, perRecord time.Duration }

func bench(runtime string, handlers [2]string, kitDir, bareDir string, rounds int, cache string) error {
	rt, err := lambdaemu.ParseRuntime(runtime)
	if err != nil {
		return err
	}
	clients := lambdaemu.Clients{Cache: cache}
	env := []string{
		"ERASURE_SUBSCRIBER=bench", "ERASURE_QUEUE_URL=http://127.0.0.1:9/000000000000/bench",
		"ERASURE_RESPONSE_QUEUE_URL=http://127.0.0.1:9/000000000000/responses", "ERASURE_PASS_TWO_DELAY_SECONDS=1",
		"ERASURE_BATCH_TIMEOUT_SECONDS=10", "ERASURE_HANDLER_ROLE_ID=AROABENCH0000000000001",
		"AWS_REGION=eu-west-1", "AWS_DEFAULT_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8",
	}
	var kit, bare []sample
	for r := 0; r < rounds; r++ {
		for _, side := range []struct {
			handler, dir string
			out          *[]sample
		}{{handlers[0], kitDir, &kit}, {handlers[1], bareDir, &bare}} {
			s, err := once(rt, clients, side.handler, side.dir, env)
			if err != nil {
				return fmt.Errorf("%s %s: %w", runtime, side.dir, err)
			}
			*side.out = append(*side.out, s)
		}
	}
	ck, cb := median(kit, func(s sample) time.Duration { return s.cold }), median(bare, func(s sample) time.Duration { return s.cold })
	pk, pb := median(kit, func(s sample) time.Duration { return s.perRecord }), median(bare, func(s sample) time.Duration { return s.perRecord })
	fmt.Printf("%-12s %-6s %10.1fms %10.1fms %7.2fx %14.1fµs %14.1fµs %7.2fx\n", runtime, "", ms(ck), ms(cb), float64(ck)/float64(cb),
		float64(pk)/1e3, float64(pb)/1e3, float64(pk)/float64(pb))
	return nil
}

// once starts a fresh process (a cold start), invokes it once, then runs
// five warm batches of ten and keeps the fastest per record.
func once(rt lambdaemu.Runtime, c lambdaemu.Clients, handler, dir string, env []string) (sample, error) {
	cmd, rtEnv, err := c.Command(rt, handler, dir)
	if err != nil {
		return sample{}, err
	}
	e, err := lambdaemu.New(lambdaemu.Function{Command: cmd, Dir: dir, Env: append(env, rtEnv...), Name: "erasure-handler-bench", Output: io.Discard})
	if err != nil {
		return sample{}, err
	}
	defer e.Close()
	ctx := context.Background()
	payload := batch()
	res, err := e.Invoke(ctx, payload, time.Minute)
	if err != nil {
		return sample{}, err
	}
	if res.FunctionError != "" {
		return sample{}, fmt.Errorf("the handler failed (%s)", res.FunctionError)
	}
	s := sample{cold: res.InitDuration + res.Duration, perRecord: time.Hour}
	for i := 0; i < 5; i++ {
		res, err := e.Invoke(ctx, payload, time.Minute)
		if err != nil {
			return sample{}, err
		}
		s.perRecord = min(s.perRecord, res.Duration/10)
	}
	return s, nil
}

func median(s []sample, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
