package bitmapstore

import (
	"context"
	"sort"
	"sync"
)

// Ledger notes.
const (
	NoteSuperseded = "superseded" // a racing writer overtook the erasure: re-run it
	noteErrorPfx   = "error: "    // followed by a code
)

// Entry is one segment's line in an erasure's ledger.
type Entry struct {
	Segment   string `json:"segment"`
	Namespace string `json:"namespace"`
	// Erased: no generation of the segment holds the id, checked by listing
	// the segment's objects and reading every one not known clean.
	Erased bool `json:"erased"`
	// FromGeneration is the generation the erasure read; Generation the one
	// it published (equal when only retained generations held the id).
	FromGeneration uint64 `json:"fromGeneration,omitempty"`
	Generation     uint64 `json:"generation,omitempty"`
	// Note is "superseded" or "error: <code>"; empty when Erased.
	Note string `json:"note,omitempty"`
}

// Superseded says a racing writer overtook the erasure of this segment.
func (e Entry) Superseded() bool { return e.Note == NoteSuperseded }

// ErrorCode is the fault's code, or "" if the segment did not fault.
func (e Entry) ErrorCode() string {
	if len(e.Note) > len(noteErrorPfx) && e.Note[:len(noteErrorPfx)] == noteErrorPfx {
		return e.Note[len(noteErrorPfx):]
	}
	return ""
}

// Result is one EraseSubject call's ledger. Segments that never held the id
// are scanned but left out of ErasedFrom.
type Result struct {
	Namespace       string  `json:"namespace"`
	ErasedFrom      []Entry `json:"erasedFrom"`
	ScannedSegments int     `json:"scannedSegments"`
}

// Complete says every entry is erased (an empty ledger of a finished scan is
// complete: no generation of any segment held the id).
func (r Result) Complete() bool {
	for _, e := range r.ErasedFrom {
		if !e.Erased {
			return false
		}
	}
	return true
}

// Counts returns how many entries were erased, superseded and faulted.
func (r Result) Counts() (erased, superseded, faulted int) {
	for _, e := range r.ErasedFrom {
		switch {
		case e.Erased:
			erased++
		case e.Superseded():
			superseded++
		default:
			faulted++
		}
	}
	return
}

// EraseSubject erases id from every segment of namespace, Concurrency
// segments at a time. For each segment it reads the row and the current
// generation; it then fences the segment with a compare-and-swap on its row
// (a new token, and the next generation number moved past every number a
// writer that read the old row could hold): where the current generation
// holds the id, by publishing a rewrite without it; where it does not, by
// publishing the same pointer. After the fence no write that began before it
// can publish, and every generation numbered below the row's next one, other
// than the pointer, is unreferenced for good. It then lists every version of
// the segment's generation keys and deletes, by version id, every version
// that holds the id (reading the ones it has not read); in a rewrite it also
// collects the older generations that do not (keep: 0). A generation above
// the fence that holds the id belongs to a writer that started after it: the
// entry is "superseded" (re-run), never "erased".
//
// A racing writer yields "superseded" (re-run: it converges once writers
// stop); a fault yields "error: <code>", never "erased". An object that was
// listed and is gone when read is a race, not absence. Segments where no
// version held the id are scanned and left out of the ledger. The returned
// error is for a namespace that could not be listed.
//
// Before an entry says erased, the row is read once more: a writer that
// published after the listing (a load that began after it, say) changed its
// token, and the entry is superseded instead.
//
// Requests per segment, in order: read row, read generation, [write
// generation], publish row, list versions, then the deletes (and reads of
// versions not yet read) in parallel, then the row again: 7 round trips for
// a segment whose current generation alone holds the id, 4 for one that
// never held it.
func (s *Store) EraseSubject(ctx context.Context, id uint32, namespace string) (Result, error) {
	res := Result{Namespace: namespace}
	segs, err := s.Segments(ctx, namespace)
	if err != nil {
		return res, err
	}
	res.ScannedSegments = len(segs)
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, s.opts.Concurrency)
	)
	for _, seg := range segs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			e, held := s.eraseSegment(ctx, namespace, seg, id)
			if held {
				mu.Lock()
				res.ErasedFrom = append(res.ErasedFrom, e)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(res.ErasedFrom, func(i, j int) bool { return res.ErasedFrom[i].Segment < res.ErasedFrom[j].Segment })
	return res, nil
}

// eraseSegment returns the segment's ledger entry, and false when no
// version of the segment held the id (no entry).
func (s *Store) eraseSegment(ctx context.Context, ns, seg string, id uint32) (Entry, bool) {
	e := Entry{Segment: seg, Namespace: ns}
	superseded := func() (Entry, bool) { e.Note = NoteSuperseded; return e, true }
	fault := func(err error) (Entry, bool) {
		if CodeOf(err) == CodeConflict {
			return superseded()
		}
		e.Note = noteErrorPfx + CodeOf(err)
		return e, true
	}
	r, etag, err := s.readRow(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	if r == nil {
		return superseded() // listed, then gone: a racing writer, not absence
	}
	cur, curVersion, err := s.readGeneration(ctx, ns, seg, r.Gen, "")
	if CodeOf(err) == CodeGenerationMissing {
		// Gone since the row was read (a racing publish collected it), or a
		// row naming a missing generation (a broken segment: a fault).
		if again, againTag, rerr := s.readRow(ctx, ns, seg); rerr == nil && (again == nil || againTag != etag) {
			return superseded()
		}
		return fault(err)
	}
	if err != nil {
		return fault(err)
	}
	e.FromGeneration = r.Gen
	holds := cur.Contains(id)
	token, err := r.nextToken()
	if err != nil {
		return fault(err)
	}
	// The fence. A writer that read r (or any row before it) took a number
	// of at most r.Next + maxTakenNumbers - 1, stepping over taken ones: the
	// fence's Next is above every such number, so every generation a writer
	// that did not read the fence wrote (an orphan of a publish that failed
	// included) is below it, can never be published, and is erased here:
	// once writers stop, one run converges.
	fenceNext := r.Next + maxTakenNumbers
	fence := row{Gen: r.Gen, Next: fenceNext, Token: token, Count: r.Count}
	mine := curVersion // the version the fence points at: the clean pointer, or the rewrite
	if holds {
		next := cur.Clone()
		next.Remove(id)
		fence = row{Gen: r.Next, Next: fenceNext, Token: token, Count: next.GetCardinality()}
		var w written
		fence, w, err = s.writeAndPublish(ctx, ns, seg, fence, etag, next)
		mine = w.version
	} else {
		err = s.publish(ctx, ns, seg, fence, etag, false)
		if err == nil {
			s.invalidate(ns, seg)
		}
	}
	if err != nil {
		return fault(err)
	}
	e.Generation = fence.Gen
	versions, err := s.listVersions(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	type check struct {
		v      version
		known  bool // read already: the version of the old pointer
		holder bool
	}
	var checks []check
	for _, v := range versions {
		switch {
		case v.marker:
			continue
		case v.gen == fence.Gen && v.id == mine:
			continue // the rewrite this call published, or the clean pointer it read
		case v.gen == r.Gen && v.id == curVersion:
			checks = append(checks, check{v: v, known: true, holder: holds})
		default:
			checks = append(checks, check{v: v})
		}
	}
	// Read, in parallel, every version not read yet; then act on each.
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		held     = holds
		outcome  error // the first fault
		overtook bool  // a holder above the fence, or a version gone since listed
	)
	inFlight := make(chan struct{}, s.opts.RequestsPerSegment)
	for i := range checks {
		c := &checks[i]
		wg.Add(1)
		inFlight <- struct{}{}
		go func() {
			defer func() { <-inFlight; wg.Done() }()
			if !c.known {
				bm, _, err := s.readGeneration(ctx, ns, seg, c.v.gen, c.v.id)
				if err != nil {
					mu.Lock()
					if CodeOf(err) == CodeGenerationMissing {
						overtook = true
					} else if outcome == nil {
						outcome = err
					}
					mu.Unlock()
					return
				}
				c.holder = bm.Contains(id)
			}
			var err error
			switch {
			case c.v.gen >= fence.Next:
				// A writer that read the fence: it may publish this one.
				if c.holder {
					mu.Lock()
					overtook = true
					mu.Unlock()
				}
				return
			case c.holder:
				err = s.deleteVersion(ctx, ns, seg, c.v.gen, c.v.id, cleanupAttempts)
			case holds && c.v.latest:
				err = s.deleteVersion(ctx, ns, seg, c.v.gen, "", 1) // keep: 0 collection of the rewrite
			}
			mu.Lock()
			if c.holder {
				held = true
			}
			if err != nil && outcome == nil {
				outcome = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	switch {
	case outcome != nil:
		return fault(outcome)
	case overtook:
		return superseded()
	case !held:
		return e, false
	}
	// "erased" must hold when the call returns. A load may have started
	// after the listing, read the fence and published a generation holding
	// the id: the listing never saw it. Every publish draws a new token, so
	// the row still carrying the fence's token says no writer published
	// since; any other row is a racing writer: superseded, re-run.
	after, _, err := s.readRow(ctx, ns, seg)
	switch {
	case err != nil:
		return fault(err)
	case after == nil || after.Token != fence.Token:
		return superseded()
	}
	e.Erased = true
	return e, true
}
