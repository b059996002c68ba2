package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
)

// Decision is what IAM would answer to one request, as far as the
// synthesized policies tell.
type Decision string

// The decisions of the access matrix.
const (
	Allowed   Decision = "allowed"
	Denied    Decision = "denied"
	Undecided Decision = "undecided" // a policy uses something the evaluator does not judge
)

// principal is who makes a request: a role (its identity policies are
// known) or a service.
type principal struct {
	name     string   // its class's name in the matrix (handler/space, other/222222222222, …)
	class    string   // its class (classHandler, classOther, …)
	aliases  []string // every identity a policy can name it by: its ARN, its reference
	account  string
	service  string // e.g. sns.amazonaws.com; "" for an IAM principal
	identity []statement
}

// target is what a request reaches: a queue, topic, key, bucket or object.
type target struct {
	name     string             // its name in the matrix (queue/space, response-queue, …)
	kind     channelpolicy.Kind // what it is on the channel's path
	store    string             // the store it belongs to, "" for the channel's own
	admins   []string           // the ARN patterns of its administrators
	aliases  []string           // its ARN and reference, or patterns over them
	account  string
	policy   []statement // its resource policy (queue, topic, bucket or key policy)
	isKey    bool        // KMS: the key policy must allow, or delegate to the account
	via      string      // for a key: the service its callers use it through (kms:ViaService)
	conflict string      // why its resource policy cannot be known (two policies set it), or ""
	t        *template   // where it is
	id       string      // its logical id
}

// request is one call: principal p calls action on r, with the request
// context's condition keys (lower case) and their values.
type request struct {
	p      *principal
	action string
	r      *target
	ctx    map[string][]string
	lower  string // action in lower case, when set
}

func (q request) lowerAction() string {
	if q.lower != "" {
		return q.lower
	}
	return strings.ToLower(q.action)
}

// verdict is a decision and the statement that made it.
type verdict struct {
	Decision Decision
	Because  string
}

// match is one statement's answer to a request: it applies, it does not,
// or it cannot be told.
type match int

const (
	noMatch match = iota
	matches
	unknownMatch
)

// evaluate decides a request the way IAM does for one account boundary: an
// explicit Deny anywhere wins; a service is let in by the resource policy
// alone; a principal of the resource's account by its identity policy or the
// resource policy; a principal of another account needs both. A KMS key
// policy must allow the principal or delegate to its account (then the
// identity policy decides), whatever the account.
func (a *assembly) evaluate(q request) verdict {
	if q.r.conflict != "" {
		return verdict{Undecided, q.r.conflict}
	}
	var unknownDeny, unknownAllow string      // statements whose conditions the evaluator cannot judge
	var idAllow, resDirect, resAccount string // the statements that allow, "" if none
	consider := func(stmts []statement, resourcePolicy bool) *verdict {
		for i, s := range stmts {
			m, direct := a.applies(s, q, resourcePolicy)
			// first names the statement unless one was named already (the
			// name is built only then: this loop runs for every cell).
			first := func(have string) string {
				if have != "" {
					return have
				}
				return s.describe(i)
			}
			if m == unknownMatch && s.Effect == "Deny" {
				unknownDeny = first(unknownDeny)
			} else if m == unknownMatch {
				unknownAllow = first(unknownAllow)
			}
			if m != matches {
				continue
			}
			switch s.Effect {
			case "Deny":
				return &verdict{Denied, "explicit deny: " + s.describe(i)}
			case "Allow":
				switch {
				case !resourcePolicy:
					idAllow = first(idAllow)
				case direct:
					resDirect = first(resDirect)
				default:
					resAccount = first(resAccount)
				}
			}
		}
		return nil
	}
	if q.p.service == "" {
		if v := consider(q.p.identity, false); v != nil {
			return *v
		}
	}
	if v := consider(q.r.policy, true); v != nil {
		return *v
	}
	// Stacks without an account (environment-agnostic) deploy to one account.
	sameAccount := q.p.account == q.r.account
	var allowed bool
	var because string
	switch {
	case q.p.service != "":
		allowed, because = resDirect != "", resDirect
	case q.r.isKey && resDirect != "" && sameAccount:
		allowed, because = true, resDirect
	case q.r.isKey:
		allowed = (resDirect != "" || resAccount != "") && idAllow != ""
		because = or(resDirect, resAccount) + " and " + idAllow
	case sameAccount && resDirect != "":
		allowed, because = true, resDirect
	case sameAccount:
		allowed, because = idAllow != "", idAllow
	default:
		allowed = (resDirect != "" || resAccount != "") && idAllow != ""
		because = or(resDirect, resAccount) + " and " + idAllow
	}
	switch {
	case allowed && unknownDeny != "":
		return verdict{Undecided, "cannot judge " + unknownDeny}
	case allowed:
		return verdict{Allowed, because}
	case unknownAllow != "":
		return verdict{Undecided, "cannot judge " + unknownAllow}
	case q.p.service != "":
		return verdict{Denied, "no statement of the resource policy allows the service"}
	case q.r.isKey && resDirect == "" && resAccount == "":
		return verdict{Denied, "the key policy neither allows the principal nor delegates to its account"}
	case !sameAccount && resDirect == "" && resAccount == "":
		return verdict{Denied, "no statement of the resource policy allows a principal of another account"}
	}
	return verdict{Denied, "no identity-policy statement allows it"}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// describe names a statement for a cell's reason: where it is, never a value.
func (s statement) describe(i int) string {
	name := s.Sid
	if name == "" {
		name = fmt.Sprintf("statement %d", i+1)
	}
	if s.from == "" {
		return name
	}
	return s.from + " " + name
}

// applies says whether statement s reaches request q: action, resource,
// principal (in a resource policy) and every condition. direct says a
// resource-policy statement names the principal itself (or everyone), not
// only its account.
func (a *assembly) applies(s statement, q request, resourcePolicy bool) (m match, direct bool) {
	if s.Action != nil && s.NotAction != nil || s.Resource != nil && s.NotResource != nil || s.Principal != nil && s.NotPrincipal != nil {
		return unknownMatch, false // not a valid statement: IAM refuses the policy
	}
	if !s.hasLowerAction(q.lowerAction()) {
		return noMatch, false
	}
	if (s.Resource != nil || s.NotResource != nil) && !a.covers(s, q.r.aliases) {
		return noMatch, false
	}
	switch {
	case s.NotPrincipal != nil && !resourcePolicy:
		return unknownMatch, false // not valid in an identity policy
	case s.NotPrincipal != nil:
		// Every principal but those listed (by ARN, service or account).
		if excluded, _ := a.principalMatches(statement{t: s.t, Principal: s.NotPrincipal}, q.p); excluded {
			return noMatch, false
		}
		direct = true
	case resourcePolicy:
		var ok bool
		if ok, direct = a.principalMatches(s, q.p); !ok {
			return noMatch, false
		}
	}
	return a.conditionsHold(s, q.ctx), direct
}

// principalMatches says whether a resource-policy statement names p: by "*"
// or {"AWS": "*"} (every principal, services included), its service, its ARN
// or reference (direct), or its account.
func (a *assembly) principalMatches(s statement, p *principal) (ok, direct bool) {
	if s.Principal == "*" {
		return true, true
	}
	pm, _ := s.Principal.(map[string]any)
	if p.service != "" {
		// {"AWS": "*"} is every principal, services included, as "*" is.
		return containsString(stringsOf(pm["Service"]), p.service) || containsString(stringsOf(pm["AWS"]), "*"), true
	}
	for _, v := range listOf(pm["AWS"]) {
		// A principal built from the stack's own unknown account is a
		// pattern over it (arn:aws:iam::*:root).
		id := a.resourcePattern(s.t, v)
		switch {
		case id == "*" || coversAny(id, p.aliases):
			return true, true
		case id == p.account || globMatch(id, "arn:aws:iam::"+p.account+":root"):
			ok = true
		}
	}
	return ok, false
}

// conditionsHold evaluates a statement's condition block against the
// request context. Negated operators hold for an absent key, IfExists
// operators too; an operator the evaluator does not know is unknownMatch.
func (a *assembly) conditionsHold(s statement, ctx map[string][]string) match {
	for op, block := range s.Condition {
		name := strings.ToLower(op)
		name = strings.TrimPrefix(strings.TrimPrefix(name, "foranyvalue:"), "forallvalues:")
		ifExists := strings.HasSuffix(name, "ifexists")
		name = strings.TrimSuffix(name, "ifexists")
		m, _ := block.(map[string]any)
		for key, vals := range m {
			var want []string
			for _, v := range listOf(vals) {
				w := a.resourcePattern(s.t, v)
				if w == "" {
					return unknownMatch
				}
				want = append(want, w)
			}
			have, present := ctx[strings.ToLower(key)]
			if name == "null" {
				if len(want) != 1 || (want[0] == "true") == present {
					return noMatch
				}
				continue
			}
			negated := strings.Contains(name, "not")
			var eq func(w, h string) bool
			switch strings.Replace(name, "not", "", 1) {
			case "stringequals":
				eq = func(w, h string) bool { return w == h }
			case "bool":
				eq = strings.EqualFold // "true" and "false", in any case
			case "stringequalsignorecase":
				eq = strings.EqualFold
			case "stringlike":
				eq = func(w, h string) bool { return coversAny(w, []string{h}) }
			case "arnlike", "arnequals":
				// IAM matches an ARN field by field: a wildcard never
				// crosses a colon.
				eq = func(w, h string) bool { return arnMatchAny(w, h) }
			default:
				return unknownMatch
			}
			if !present {
				if negated || ifExists {
					continue
				}
				return noMatch
			}
			hit := false
			for _, w := range want {
				for _, h := range have {
					hit = hit || eq(w, h)
				}
			}
			if hit == negated {
				return noMatch
			}
		}
	}
	return matches
}
