package accessmodel

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// identityCover indexes which targets each role's identity statements reach.
type identityCover struct {
	exact   map[string][]*Principal // resource alias -> roles with a statement naming it
	exactOf map[*Principal][]string // role -> the exact resources its statements name
	pattern map[*Principal][]coverPattern
	covered map[string]map[*Principal]bool // a target's pattern alias -> the roles naming an ARN it covers, once
}

type coverPattern struct{ pattern, prefix string }

func (m *Matrix) identityIndex() *identityCover {
	c := &identityCover{exact: map[string][]*Principal{}, exactOf: map[*Principal][]string{}, pattern: map[*Principal][]coverPattern{}, covered: map[string]map[*Principal]bool{}}
	for _, name := range m.principalOrder {
		p := m.principals[name]
		if p.Class != ClassHandler && p.Class != ClassRole {
			continue
		}
		for _, s := range p.Identity {
			if s.NotResource != nil {
				c.pattern[p] = append(c.pattern[p], coverPattern{pattern: "*"})
				continue
			}
			for _, r := range iameval.ListOf(s.Resource) {
				pat := s.Render(r)
				if pat == "" {
					continue
				}
				if i := strings.IndexAny(pat, "*?"); i >= 0 {
					c.pattern[p] = append(c.pattern[p], coverPattern{pattern: pat, prefix: pat[:i]})
				} else {
					c.exact[pat] = append(c.exact[pat], p)
					c.exactOf[p] = append(c.exactOf[p], pat)
				}
			}
		}
	}
	return c
}

// reachedBy is every role a statement of which names t exactly: reaches'
// first question, asked once for all roles.
func (c *identityCover) reachedBy(t *Target) map[*Principal]bool {
	out := map[*Principal]bool{}
	for _, al := range t.Aliases {
		for _, q := range c.exact[al] {
			out[q] = true
		}
	}
	return out
}

// patternReaches is reaches by a pattern: t's or one of p's statements'.
func (c *identityCover) patternReaches(p *Principal, t *Target) bool {
	for _, al := range t.Aliases {
		if !strings.ContainsAny(al, "*?") {
			continue
		}
		// A target known only by a pattern (another app's key of the
		// response queue's account and region) is reached by an exact ARN
		// the pattern covers.
		covered, ok := c.covered[al]
		if !ok {
			covered = map[*Principal]bool{}
			for q, exact := range c.exactOf {
				if iameval.CoversAny(al, exact) {
					covered[q] = true
				}
			}
			c.covered[al] = covered
		}
		if covered[p] {
			return true
		}
	}
	for _, cp := range c.pattern[p] {
		for _, al := range t.Aliases {
			if strings.HasPrefix(al, cp.prefix) && iameval.CoversAny(cp.pattern, []string{al}) || strings.Contains(al, "*") && iameval.CoversAny(cp.pattern, []string{al}) {
				return true
			}
		}
	}
	return false
}
