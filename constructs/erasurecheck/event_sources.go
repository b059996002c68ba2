package erasurecheck

import (
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// eventSource is an AWS::Lambda::EventSourceMapping of the app and the
// source it names, resolved once.
type eventSource struct {
	t      *template
	ti     int // t's place in the assembly's templates
	id     string
	props  map[string]any
	source string // a.Pattern of its EventSourceArn
}

// eventSourceIndex is every event source of the app by the source it names:
// exact names in a map, patterns (a plain template's unknown account or
// region) in a list. Finding a queue's event sources was a scan of every
// resource of the app for every store.
type eventSourceIndex struct {
	all   []*eventSource
	exact map[string][]*eventSource
	wild  []*eventSource
}

func isPattern(s string) bool { return strings.ContainsAny(s, "*?") }

// eventSourcesOf indexes the app's event sources, once per resolution
// (setAssume drops it with the other resolved caches).
func (a *assembly) eventSourcesOf() *eventSourceIndex {
	if a.eventSources != nil {
		return a.eventSources
	}
	ix := &eventSourceIndex{exact: map[string][]*eventSource{}}
	for ti, t := range a.Templates {
		for _, id := range t.IDsOf("AWS::Lambda::EventSourceMapping") {
			props := t.Resources[id].Properties
			e := &eventSource{t: t, ti: ti, id: id, props: props, source: a.Pattern(t, props["EventSourceArn"])}
			if e.source == "" {
				continue
			}
			ix.all = append(ix.all, e)
			if isPattern(e.source) {
				ix.wild = append(ix.wild, e)
			} else {
				ix.exact[e.source] = append(ix.exact[e.source], e)
			}
		}
	}
	a.eventSources = ix
	return ix
}

// readingFrom is every event source whose source meets one of a queue's
// names (iameval.ARNsMeet, as namesOneOf asks), the queue's own template's
// first, then in the assembly's order, each template's by logical id: its
// first reader is the store's handler.
func (ix *eventSourceIndex) readingFrom(names []string, own *template) []*eventSource {
	seen := map[*eventSource]bool{}
	var out []*eventSource
	add := func(e *eventSource) {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if isPattern(n) {
			for _, e := range ix.all {
				if iameval.ARNsMeet(e.source, n) {
					add(e)
				}
			}
			continue
		}
		for _, e := range ix.exact[n] {
			add(e)
		}
		for _, e := range ix.wild {
			if iameval.ARNsMeet(e.source, n) {
				add(e)
			}
		}
	}
	slices.SortFunc(out, func(x, y *eventSource) int {
		switch {
		case (x.t == own) != (y.t == own):
			if x.t == own {
				return -1
			}
			return 1
		case x.ti != y.ti:
			return x.ti - y.ti
		}
		return strings.Compare(x.id, y.id)
	})
	return out
}
