package fuzzparity

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var (
	duration = flag.Duration("fuzzparity.duration", time.Minute, "how long the differential run lasts")
	count    = flag.Int("fuzzparity.count", 0, "stop after this many inputs (0: no bound)")
	seed     = flag.Uint64("fuzzparity.seed", 0, "generator seed (0: from the clock)")
	foundDir = flag.String("fuzzparity.out", "", "write minimised disagreements here (default: a temporary directory)")
)

// TestDifferential judges generated and mutated messages with Go (fast
// parser, schema path, request and response parsers) and with the
// TypeScript twin (ajv 2020 strict plus its wire profile) and fails on any
// disagreement, writing each minimised input to a file (never to the log).
// make test runs it for a minute; make fuzz-parity for as long as asked.
func TestDifferential(t *testing.T) {
	twin, err := StartTwin()
	if err != nil {
		t.Fatal(err)
	}
	defer twin.Close()
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	st, err := Run(twin, Options{Count: *count, Duration: *duration, Seed: s})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("fuzz-parity: seed %d, %d inputs judged in %.1f s, %.0f inputs/s, %d disagreements\n",
		s, st.Judged, st.Elapsed.Seconds(), st.PerSecond, len(st.Found))
	if st.Judged == 0 {
		t.Fatal("no input was judged")
	}
	if len(st.Found) == 0 {
		return
	}
	dir := *foundDir
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range st.Found {
		path := filepath.Join(dir, "disagreement-"+f.SHA256+".json")
		if err := os.WriteFile(path, f.Input, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s (%d bytes): %s", path, len(f.Input), f.Why)
	}
}

// TestDisagreementIsDetected: the harness is not a test that cannot fail:
// a twin verdict that differs from Go's is a disagreement, and Minimise keeps
// the part that matters.
func TestDisagreementIsDetected(t *testing.T) {
	v := JudgeGo([]byte(`{}`))
	if Disagreement(v, "INVALID_MESSAGE") != "" {
		t.Fatalf("agreeing judges reported: %+v", v)
	}
	if Disagreement(v, "NOT_JSON") == "" || Disagreement(v, "VALID:erasure/ERASE") == "" {
		t.Fatal("a differing twin verdict is not a disagreement")
	}
	if Disagreement(Verdicts{Fast: "VALID:erasure/CHECK", Schema: "VALID:erasure/CHECK", Request: "NOT_A_REQUEST", Response: "NOT_A_RESPONSE"}, "VALID:erasure/CHECK") == "" {
		t.Fatal("a request parser refusing a valid request is not a disagreement")
	}
	g, err := NewGenerator(1)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for i := 0; i < 2000; i++ {
		distinct[JudgeGo(g.Next()).Fast] = true
	}
	if len(distinct) < 5 {
		t.Fatalf("the generator reaches only %d verdicts: %v", len(distinct), distinct)
	}
}
