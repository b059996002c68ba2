package fuzzparity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Options bound a run: it stops at Count inputs or after Duration, whichever
// comes first (zero: no bound of that kind; one must be set).
type Options struct {
	Count    int
	Duration time.Duration
	Seed     uint64
	Batch    int // inputs per round trip to the twin; default 4096
	// MaxFound stops the run after this many distinct disagreements; default 20.
	MaxFound int
}

// Found is one disagreement, minimised.
type Found struct {
	Input  []byte
	Why    string
	SHA256 string
}

// Stats are a run's figures.
type Stats struct {
	Judged    int
	Elapsed   time.Duration
	PerSecond float64
	Found     []Found
}

// Run generates inputs, judges each with Go and the twin, and minimises
// every disagreement.
func Run(twin *Twin, o Options) (Stats, error) {
	if o.Batch <= 0 {
		o.Batch = 4096
	}
	if o.MaxFound <= 0 {
		o.MaxFound = 20
	}
	g, err := NewGenerator(o.Seed)
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	seen := map[string]bool{}
	start := time.Now()
	batch := make([][]byte, o.Batch)
	goV := make([]Verdicts, o.Batch)
	for {
		if o.Count > 0 && st.Judged >= o.Count || o.Duration > 0 && time.Since(start) >= o.Duration || len(st.Found) >= o.MaxFound {
			break
		}
		n := o.Batch
		if o.Count > 0 {
			n = min(n, o.Count-st.Judged)
		}
		for i := 0; i < n; i++ {
			batch[i] = g.Next()
		}
		// The twin judges the batch while Go judges it here: one core each.
		type answer struct {
			ts  []string
			err error
		}
		twinDone := make(chan answer, 1)
		go func() { ts, err := twin.Judge(batch[:n]); twinDone <- answer{ts, err} }()
		for i := 0; i < n; i++ {
			goV[i] = JudgeGo(batch[i])
		}
		a := <-twinDone
		if a.err != nil {
			return st, a.err
		}
		for i := 0; i < n; i++ {
			why := Disagreement(goV[i], a.ts[i])
			if why == "" {
				continue
			}
			min, err := Minimise(twin, batch[i])
			if err != nil {
				return st, err
			}
			sum := sha256.Sum256(min)
			h := hex.EncodeToString(sum[:8])
			if !seen[h] {
				seen[h] = true
				tv, err := twin.Judge([][]byte{min})
				if err != nil {
					return st, err
				}
				st.Found = append(st.Found, Found{Input: min, Why: Disagreement(JudgeGo(min), tv[0]), SHA256: h})
			}
		}
		st.Judged += n
	}
	st.Elapsed = time.Since(start)
	st.PerSecond = float64(st.Judged) / st.Elapsed.Seconds()
	return st, nil
}

// disagrees says whether the judges still disagree on b.
func disagrees(twin *Twin, bs [][]byte) ([]bool, error) {
	ts, err := twin.Judge(bs)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(bs))
	for i, b := range bs {
		out[i] = Disagreement(JudgeGo(b), ts[i]) != ""
	}
	return out, nil
}

// Minimise shrinks a disagreeing input (delta debugging over bytes): it
// removes ever smaller chunks while the judges still disagree.
func Minimise(twin *Twin, in []byte) ([]byte, error) {
	cur := append([]byte(nil), in...)
	for chunk := len(cur) / 2; chunk >= 1; {
		var cands [][]byte
		for i := 0; i+chunk <= len(cur); i += chunk {
			c := append(append([]byte(nil), cur[:i]...), cur[i+chunk:]...)
			cands = append(cands, c)
		}
		if len(cands) == 0 {
			chunk /= 2
			continue
		}
		ok, err := disagrees(twin, cands)
		if err != nil {
			return nil, err
		}
		shrunk := false
		for i, d := range ok {
			if d && !bytes.Equal(cands[i], cur) {
				cur, shrunk = cands[i], true
				break
			}
		}
		if !shrunk {
			chunk /= 2
		} else if chunk > len(cur)/2 {
			chunk = max(len(cur)/2, 1)
		}
		if len(cur) == 0 {
			break
		}
	}
	return cur, nil
}
