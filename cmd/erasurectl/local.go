package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

// localBitmapBucket is the bucket name the local channel gives the bitmap store.
const localBitmapBucket = "bitmaps-local"

// bitmapProof is what every object version of the bitmap store's bucket says
// about the sample subject after the round.
type bitmapProof struct {
	Audit                   bitmapstore.AuditReport `json:"audit"`
	NoncurrentExpiryDays    int                     `json:"noncurrentVersionExpiryDays"`
	NoncurrentExpiryCapDays int                     `json:"noncurrentVersionExpiryCapDays"`
}

func bitmapOf(stores []local.TemplateStore, name string) *local.TemplateBitmapBucket {
	for _, s := range stores {
		if s.Spec.Name == name {
			return s.Bitmap
		}
	}
	return nil
}

// startBitmaps creates the bitmap store's bucket on the embedded S3 with the
// template's prefix and read TTL, and loads the sample segments.
func startBitmaps(ctx context.Context, emu *emulator.Emulator, b *local.TemplateBitmapBucket) (*examplestore.Bitmaps, error) {
	if err := emu.S3.CreateVersionedBucket(ctx, localBitmapBucket); err != nil {
		return nil, fmt.Errorf("local: bitmap bucket: %w", err)
	}
	bm, err := examplestore.NewBitmaps(emu.S3.Client(), bitmapstore.Options{Bucket: localBitmapBucket, Prefix: b.Prefix,
		ReadTTL: time.Duration(b.ReadTTLMillis) * time.Millisecond, Keep: 1})
	if err != nil {
		return nil, err
	}
	return bm, bm.SeedSample(ctx)
}

func proveBitmapErasure(ctx context.Context, emu *emulator.Emulator, b *local.TemplateBitmapBucket) (*bitmapProof, error) {
	rep, err := bitmapstore.Audit(ctx, emu.S3.Client(), localBitmapBucket, b.Prefix, examplestore.SampleSubjectID)
	if err != nil {
		return nil, err
	}
	return &bitmapProof{Audit: rep, NoncurrentExpiryDays: b.NoncurrentVersionExpiryDays(), NoncurrentExpiryCapDays: contract.Channel().NoncurrentVersionExpiryCapDays}, nil
}

type localCmd struct {
	synthFlags
	TimeScale int  `name:"time-scale" default:"60" help:"Divide every channel duration by this, so a round trip takes seconds (1 runs the deployed timings: pass two alone then waits 5 minutes)."`
	NoSynth   bool `name:"no-synth" help:"Use the templates already in --out instead of synthesizing first."`
	Keep      bool `help:"Leave the channel running after the round trip, for your own handler; Ctrl-C stops it."`
	Verbose   bool `help:"Print the store handlers' logs (codes and counts only) on stderr."`
}

// roundResult is one store's answer to one round.
type roundResult struct {
	Answer    string  `json:"answer"`
	AfterSecs float64 `json:"afterSeconds"`
}

type localSummary struct {
	Endpoint    string                            `json:"endpoint"`
	TimeScale   int                               `json:"timeScale"`
	Stores      []string                          `json:"stores"`
	Rounds      map[string]map[string]roundResult `json:"rounds"` // round -> store -> answer
	Complete    bool                              `json:"complete"`
	Erased      map[string]bool                   `json:"erased"` // store -> the sample account is gone
	Bitmap      *bitmapProof                      `json:"bitmapProof,omitempty"`
	TotalSecs   float64                           `json:"totalSeconds"`
	RoundTripMs int64                             `json:"roundTripMilliseconds"`
	Access      accessSummary                     `json:"access"`
	Ledger      ledgerSummary                     `json:"ledger"`
}

// accessSummary is what the gate (the deployed policies, applied locally)
// said during the run.
type accessSummary struct {
	Cells          int            `json:"cells"`          // the access matrix the gate decides with
	DeniedCalls    map[string]int `json:"deniedCalls"`    // "principal action resource" -> calls
	RefusedAnswers int            `json:"refusedAnswers"` // answers whose sender was not the store's handler
}

func (l *localCmd) Run(g *globals) error {
	if l.TimeScale < 1 {
		return fail(exitUsage, "--time-scale must be at least 1")
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var stores []local.TemplateStore
	var err error
	if l.NoSynth {
		if stores, err = local.StoresFromTemplates(l.Out); err != nil {
			return fail(exitEnvironment, "%v", err)
		}
	} else {
		if !g.JSON {
			fmt.Fprintf(g.Stdout, "synthesizing the app to %s …\n", l.Out)
		}
		if stores, err = l.synthesize(g); err != nil {
			return err
		}
	}
	if len(stores) == 0 {
		return fail(exitCheckFailed, "the templates hold no ErasureSubscriber")
	}
	scaled, err := timing.Scaled(contract.Channel(), l.TimeScale)
	if err != nil {
		return fail(exitUsage, "--time-scale %d breaks the channel's arithmetic: %v", l.TimeScale, err)
	}
	spec := local.Spec{Constants: scaled}
	for _, s := range stores {
		if !s.RawDelivery || !s.PartialReport {
			return fail(exitCheckFailed, "store %s: the template does not deliver raw bodies with partial batch failures", s.Spec.Name)
		}
		st := local.StoreSpec{Name: s.Spec.Name, Settings: s.Spec.Settings.Scaled(l.TimeScale, scaled)}
		if p := st.Settings.Check(scaled, problem.Root("ErasureSubscriber").Key(st.Name)); len(p) > 0 {
			return fail(exitCheckFailed, "store %s, scaled by %d: %s", st.Name, l.TimeScale, p)
		}
		spec.Stores = append(spec.Stores, st)
	}

	emu, err := emulator.Start(ctx, emulator.Options{})
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	defer emu.Stop()
	cl := local.NewClients(emu.Endpoint, emu.Region)
	ch, err := local.Create(ctx, cl, spec)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	// Every component calls as its own principal through a gate that decides
	// with the synthesized policies, as IAM would after a deploy.
	matrix, err := erasurecheck.Access([]string{l.Out}, erasurecheck.Config{})
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	gate, err := local.StartGate(emu.Endpoint, matrix)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	defer gate.Close()
	ch.Guard(gate, emu.Region)

	logOut := io.Discard
	if l.Verbose {
		logOut = g.Stderr
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	examples := map[string]*examplestore.Store{}
	var bitmaps *examplestore.Bitmaps
	var bitmapBucket *local.TemplateBitmapBucket
	names := make([]string, 0, len(spec.Stores))
	handlers := map[string]local.HandlerFunc{}
	for _, s := range spec.Stores {
		names = append(names, s.Name)
		var impls map[contract.Pair]storehandler.Func
		if ex := examplestore.ByName(s.Name); ex != nil {
			examples[s.Name] = ex
			impls = ex.Implementations()
		}
		if b := bitmapOf(stores, s.Name); b != nil && s.Name == examplestore.BitmapsName {
			if bitmaps, err = startBitmaps(ctx, emu, b); err != nil {
				return fail(exitEnvironment, "%v", err)
			}
			bitmapBucket = b
			impls = bitmaps.Implementations()
		}
		h, err := ch.NewHandler(s.Name, impls, local.HandlerOptions{Log: log, Metrics: logOut})
		if err != nil {
			return fail(exitEnvironment, "%v", err)
		}
		handlers[s.Name] = h.Handle
	}
	// The account service's ledger, on a DynamoDB API emulator: every request
	// recorded before it is published, every authenticated answer recorded once.
	led, err := startLocalLedger(ctx, scaled, names)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	defer led.stop()
	collector := publisher.NewCollector()
	defer ch.ServeWith(ctx, emu.Region, handlers, collector, led.sink, log)()

	if !g.JSON {
		fmt.Fprintf(g.Stdout, "local channel on %s (durations ÷ %d: T = %d s, V = %d s, X = %d s, R = %d s)\n",
			emu.Endpoint, l.TimeScale, scaled.HandlerTimeoutCapSeconds, scaled.VisibilityTimeoutCapSeconds, scaled.PassTwoDelayCapSeconds, scaled.ExpiryPeriodSeconds)
		fmt.Fprintf(g.Stdout, "stores: %s\n", strings.Join(names, ", "))
	}
	pub := publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN, publisher.WithConstants(scaled))
	published := time.Now()
	erase, err := led.Publish(ctx, pub, pub.NewErase(contract.KeyAccount, examplestore.SampleAccount), names)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	checkReq, err := pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAddress, Key: examplestore.SampleAddress, CreatedAt: published})
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	check, err := led.Publish(ctx, pub, checkReq, names)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	rounds := []struct {
		label string
		key   publisher.RoundKey
	}{
		{"CHECK by address", publisher.RoundKey{RequestID: check.RequestID}},
		{"ERASE by account", publisher.RoundKey{RequestID: erase.RequestID, SendNo: erase.SendNo}},
	}
	sum := localSummary{Endpoint: emu.Endpoint, TimeScale: l.TimeScale, Stores: names, Rounds: map[string]map[string]roundResult{}, Erased: map[string]bool{}}
	seen := map[string]bool{}
	tty := isTerminal(g.Stdout) && !g.JSON
	deadline := time.NewTimer(time.Duration(scaled.ExpiryPeriodSeconds+scaled.ClockSkewAllowanceSeconds) * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		done := true
		var progress []string
		for _, r := range rounds {
			st := collector.Status(r.key, names)
			if sum.Rounds[r.label] == nil {
				sum.Rounds[r.label] = map[string]roundResult{}
			}
			for name, resp := range st.Answered {
				if id := r.label + "/" + name; !seen[id] {
					seen[id] = true
					res := roundResult{Answer: string(resp.Outcome) + string(resp.Answer), AfterSecs: time.Since(published).Seconds()}
					sum.Rounds[r.label][name] = res
					if !g.JSON {
						if tty {
							fmt.Fprint(g.Stdout, "\r\033[K")
						}
						fmt.Fprintf(g.Stdout, "  %-8s answered %-17s %-15s after %.1f s\n", name, r.label, res.Answer, res.AfterSecs)
					}
				}
			}
			progress = append(progress, fmt.Sprintf("%s %d/%d", r.label, len(names)-len(st.Missing), len(names)))
			done = done && st.Complete()
		}
		if tty {
			fmt.Fprintf(g.Stdout, "\r\033[K%s  %.1f s", strings.Join(progress, "   "), time.Since(published).Seconds())
		}
		if done {
			sum.Complete = true
			break
		}
		select {
		case <-tick.C:
			continue
		case <-deadline.C:
		case <-ctx.Done():
		}
		break
	}
	if tty {
		fmt.Fprint(g.Stdout, "\r\033[K")
	}
	sum.RoundTripMs = time.Since(published).Milliseconds()
	for name, ex := range examples {
		sum.Erased[name] = !ex.Holds(contract.KeyAccount, examplestore.SampleAccount)
	}
	if bitmaps != nil {
		held, err := bitmaps.HoldsSample(ctx)
		sum.Erased[examplestore.BitmapsName] = err == nil && !held
		if sum.Bitmap, err = proveBitmapErasure(ctx, emu, bitmapBucket); err != nil {
			return fail(exitEnvironment, "%v", err)
		}
	}
	sum.Access = accessSummary{Cells: len(matrix.Cells), DeniedCalls: gate.DeniedCalls(), RefusedAnswers: ch.RefusedAnswers()}
	if sum.Ledger, err = led.receipts(ctx, pub, check.RequestID, erase.RequestID); err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	sum.TotalSecs = time.Since(start).Seconds()
	l.printSummary(g, sum, rounds[0].label, rounds[1].label)

	if l.Keep && ctx.Err() == nil {
		l.printKeep(g, emu, gate, ch)
		<-ctx.Done()
		fmt.Fprintln(g.Stdout, "stopping the local channel")
	}
	if !sum.Complete {
		return fail(exitCheckFailed, "not every store answered within R")
	}
	if !sum.Ledger.Verified || len(sum.Ledger.Receipts) != 2 {
		return fail(exitCheckFailed, "the ledger did not complete both requests with a receipt in a log that verifies")
	}
	if len(sum.Access.DeniedCalls) > 0 || sum.Access.RefusedAnswers > 0 {
		return fail(exitCheckFailed, "a component was denied a call or an answer was refused: the deployed wiring would fail the same way")
	}
	return nil
}

func (l *localCmd) printSummary(g *globals, sum localSummary, first, second string) {
	if g.JSON {
		b, _ := json.MarshalIndent(sum, "", "  ")
		fmt.Fprintln(g.Stdout, string(b))
		return
	}
	fmt.Fprintln(g.Stdout)
	w := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "STORE\t%s\t%s\tSAMPLE ACCOUNT ERASED\n", strings.ToUpper(first), strings.ToUpper(second))
	names := append([]string(nil), sum.Stores...)
	sort.Strings(names)
	cell := func(label, name string) string {
		r, ok := sum.Rounds[label][name]
		if !ok {
			return "(no answer)"
		}
		return fmt.Sprintf("%s in %.1f s", r.Answer, r.AfterSecs)
	}
	for _, n := range names {
		erased := "-"
		if e, ok := sum.Erased[n]; ok {
			erased = map[bool]string{true: "yes", false: "no"}[e]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", n, cell(first, n), cell(second, n), erased)
	}
	_ = w.Flush()
	if b := sum.Bitmap; b != nil {
		fmt.Fprintf(g.Stdout, "\nbitmap store proof (every object version in the bucket, read back):\n")
		fmt.Fprintf(g.Stdout, "  current generations     %d, holding the erased subject: %d\n", b.Audit.CurrentGenerations, len(b.Audit.CurrentHolders))
		fmt.Fprintf(g.Stdout, "  noncurrent generations  %d, holding it: %d (the erasure deletes, by version id, every version that held it; the rest expire within %d days, cap %d)\n",
			b.Audit.NoncurrentGenerations, b.Audit.NoncurrentHolders, b.NoncurrentExpiryDays, b.NoncurrentExpiryCapDays)
		fmt.Fprintf(g.Stdout, "  delete markers          %d; other versions (registry rows, directory) %d\n", b.Audit.DeleteMarkers, b.Audit.OtherVersions)
	}
	printLedger(g, sum.Ledger)
	denied := 0
	for _, n := range sum.Access.DeniedCalls {
		denied += n
	}
	fmt.Fprintf(g.Stdout, "\naccess: every component called as its own principal, decided by the synthesized policies (%d cells): %d calls denied, %d answers refused\n",
		sum.Access.Cells, denied, sum.Access.RefusedAnswers)
	state := "every store answered both rounds"
	if !sum.Complete {
		state = "NOT every store answered"
	}
	fmt.Fprintf(g.Stdout, "\n%s: round trip %.1f s, %.1f s in all (ERASE waits for pass two)\n", state, float64(sum.RoundTripMs)/1000, sum.TotalSecs)
}

func (l *localCmd) printKeep(g *globals, emu *emulator.Emulator, gate *local.Gate, ch *local.Channel) {
	fmt.Fprintf(g.Stdout, "\nthe local channel keeps running behind its access gate; point your handler at it:\n")
	fmt.Fprintf(g.Stdout, "  endpoint        %s (region %s)\n", gate.URL, emu.Region)
	fmt.Fprintf(g.Stdout, "  topic           %s\n", ch.TopicARN)
	fmt.Fprintf(g.Stdout, "  response queue  %s\n", ch.ResponseQueue.URL)
	names := make([]string, 0, len(ch.Stores))
	for n := range ch.Stores {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(g.Stdout, "  %-15s %s (DLQ %s)\n", n+" queue", ch.Stores[n].Queue.URL, ch.Stores[n].DeadLetterQueue.URL)
	}
	fmt.Fprintln(g.Stdout, "every call must be signed (SigV4) with a principal's credentials; the gate decides it with the app's access matrix:")
	principals := []string{accessmodel.AccountServicePrincipal}
	for _, n := range names {
		principals = append(principals, local.HandlerPrincipal(n))
	}
	for _, p := range principals {
		c := gate.Credentials(p, emu.Region)
		fmt.Fprintf(g.Stdout, "  %-22s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s\n", p, c.AccessKeyID, c.SecretAccessKey)
	}
	fmt.Fprintln(g.Stdout, "(the channel's own reader counts an answer only from the handler it knows, by SenderId: answers sent as")
	fmt.Fprintln(g.Stdout, "a store's handler count for that store; read your own handler's answers yourself if it is not on the roster)")
	fmt.Fprintln(g.Stdout, "Ctrl-C stops everything.")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
