package bitmapstore

import (
	"context"
	"errors"
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

// EraseSubject erases id from every segment of namespace. For each segment
// whose current generation holds id it writes a generation without it,
// publishes it fenced on the row it read, then deletes every other
// generation; where only older (retained or superseded) generations hold the
// id it deletes those. Before an entry says erased it lists the segment's
// objects again and reads every one it did not write, and checks the pointer
// is still its own. A racing writer yields "superseded"; a fault yields
// "error: <code>", never erased. The returned error is for a namespace that
// could not be listed; per-segment faults are ledger entries.
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
// generation of the segment held the id (no entry).
func (s *Store) eraseSegment(ctx context.Context, ns, seg string, id uint32) (Entry, bool) {
	e := Entry{Segment: seg, Namespace: ns}
	fault := func(err error) (Entry, bool) {
		var se *Error
		if errors.As(err, &se) && se.Code == CodeConflict {
			e.Note = NoteSuperseded
		} else {
			e.Note = noteErrorPfx + CodeOf(err)
		}
		return e, true
	}
	r, etag, err := s.readRow(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	if r == nil {
		return e, false // the row went away after the listing
	}
	gens, err := s.listGenerations(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	cur, err := s.readGeneration(ctx, ns, seg, r.Gen)
	if err != nil {
		return fault(err)
	}
	e.FromGeneration = r.Gen
	pointer := r.Gen
	if cur.Contains(id) {
		// Rewrite without the id, fenced on the row read; then keep: 0.
		next := cur.Clone()
		next.Remove(id)
		gen, err := s.rewrite(ctx, ns, seg, r, etag, gens, next)
		if err != nil {
			return fault(err)
		}
		pointer = gen
		for _, g := range gens {
			if g != gen {
				if err := s.deleteGeneration(ctx, ns, seg, g); err != nil {
					return fault(err)
				}
			}
		}
	} else {
		// The current generation is clean: delete only the others that hold
		// the id (retained or superseded); the rest stay as they are.
		held := false
		for _, g := range gens {
			if g == r.Gen {
				continue
			}
			bm, err := s.readGeneration(ctx, ns, seg, g)
			if err != nil {
				var se *Error
				if errors.As(err, &se) && se.Code == CodeGenerationMissing {
					continue // collected since the listing
				}
				return fault(err)
			}
			if bm.Contains(id) {
				held = true
				if err := s.deleteGeneration(ctx, ns, seg, g); err != nil {
					return fault(err)
				}
			}
		}
		if !held {
			return e, false
		}
	}
	e.Generation = pointer
	// Verify: the pointer is still ours, and no generation left holds the id.
	again, _, err := s.readRow(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	if again == nil || again.Gen != pointer {
		e.Note = NoteSuperseded
		return e, true
	}
	left, err := s.listGenerations(ctx, ns, seg)
	if err != nil {
		return fault(err)
	}
	for _, g := range left {
		if g == pointer && cur.Contains(id) {
			continue // the generation this call wrote: known clean
		}
		bm, err := s.readGeneration(ctx, ns, seg, g)
		if err != nil {
			var se *Error
			if errors.As(err, &se) && se.Code == CodeGenerationMissing {
				continue
			}
			return fault(err)
		}
		if bm.Contains(id) {
			e.Note = NoteSuperseded // a racing writer left a holder: re-run
			return e, true
		}
	}
	e.Erased = true
	return e, true
}
