package erasurecheck

// A development-time cross-check of the access evaluator against an
// independent IAM evaluator (npm @cloud-copilot/iam-simulate, AGPL-3.0, kept
// out of the build and of CI: make oracle-access installs it on request).
// TestExportOracleCases writes every cell of the matrix of an assembly, and of
// randomly widened or narrowed variants of its policies, as iam-simulate
// simulations with our decision beside them; tools/iam-oracle/run.mjs runs
// them and fails on any disagreement. It is skipped unless -oracle.assembly
// is given.

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

var (
	oracleAssembly = flag.String("oracle.assembly", "", "a cloud assembly whose access matrix to export for the iam-simulate cross-check")
	oracleVariants = flag.Int("oracle.variants", 200, "randomly mutated variants of its policies to export too")
	oracleOut      = flag.String("oracle.out", "oracle-cases.json", "where to write the cases")
)

func TestExportOracleCases(t *testing.T) {
	if *oracleAssembly == "" {
		t.Skip("no -oracle.assembly: make oracle-access runs this")
	}
	files, err := cfnmodel.TemplateFiles([]string{*oracleAssembly})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(*oracleOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	// One case a line (JSON Lines: the file is read as a stream), and each
	// distinct simulation once: a variant's cells repeat the app's where its
	// edits do not reach.
	seen := map[[32]byte]bool{}
	cases, skipped := 0, 0
	for v := 0; v <= *oracleVariants; v++ {
		a, err := readAssembly(files)
		if err != nil {
			t.Fatal(err)
		}
		var touched map[uintptr]bool // every cell of the app; of a variant, those its edits reach
		if v > 0 {
			touched = mutate(a, rand.New(rand.NewPCG(uint64(v), 3)))
		}
		for _, x := range dumpSims(a, touched) {
			c := x.(map[string]any)
			key, _ := json.Marshal([]any{c["simulation"], c["cell"].(accessmodel.Cell).Got})
			h := sha256.Sum256(key)
			if seen[h] {
				skipped++
				continue
			}
			seen[h] = true
			c["variant"] = v
			b, _ := json.Marshal(c)
			w.Write(append(b, '\n'))
			cases++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d distinct cases (%d repeats left out, %d variants) written to %s", cases, skipped, *oracleVariants, *oracleOut)
}

// mutate widens or narrows a few statements of the app's policies at random,
// and returns the statements it changed (by identity).
func mutate(a *assembly, r *rand.Rand) map[uintptr]bool {
	touched := map[uintptr]bool{}
	var docs []map[string]any
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			res := t.Resources[id]
			for _, k := range []string{"PolicyDocument", "KeyPolicy"} {
				if d, ok := res.Properties[k].(map[string]any); ok {
					docs = append(docs, d)
				}
			}
		}
	}
	for n := 0; n < 1+r.IntN(3); n++ {
		d := docs[r.IntN(len(docs))]
		list, _ := d["Statement"].([]any)
		if len(list) == 0 {
			continue
		}
		st := list[r.IntN(len(list))].(map[string]any)
		touched[reflect.ValueOf(st).Pointer()] = true
		switch r.IntN(8) {
		case 0:
			delete(st, "Condition")
		case 1:
			if st["Effect"] == "Allow" {
				st["Effect"] = "Deny"
			} else {
				st["Effect"] = "Allow"
			}
		case 2:
			if _, ok := st["Principal"]; ok {
				st["Principal"] = "*"
			}
		case 3:
			st["Resource"] = "*"
			delete(st, "NotResource")
		case 4:
			st["Action"] = []any{"sqs:*", "kms:*", "s3:*", "sns:*"}
			delete(st, "NotAction")
		case 5:
			if _, ok := st["Principal"]; ok {
				st["Principal"] = map[string]any{"AWS": "arn:aws:iam::222222222222:root"}
			}
		case 6:
			if c, ok := st["Condition"].(map[string]any); ok {
				for op, v := range c {
					delete(c, op)
					flip := map[string]string{"ArnNotLike": "ArnLike", "ArnLike": "ArnNotLike", "ArnEquals": "ArnNotEquals", "ArnNotEquals": "ArnEquals", "StringEquals": "StringNotEquals", "Bool": "Bool"}[op]
					if flip == "" {
						flip = op
					}
					c[flip] = v
					break
				}
			}
		case 7:
			notPrincipalRewrite(st, r)
		}
		d["Statement"] = list
	}
	if r.IntN(3) == 0 {
		addBoundary(a, r, touched)
	}
	return touched
}

// notPrincipalRewrite rewrites a lock that spares principals by an
// aws:PrincipalArn condition into a Deny with NotPrincipal naming them, as a
// team might write it (sometimes with the account as AWS asks), when they
// are exact ARNs: NotPrincipal takes no wildcard.
func notPrincipalRewrite(st map[string]any, r *rand.Rand) {
	c, _ := st["Condition"].(map[string]any)
	if st["Effect"] != "Deny" || c == nil {
		return
	}
	for op, block := range c {
		b, _ := block.(map[string]any)
		if !strings.Contains(op, "Not") || b == nil {
			continue
		}
		for k, v := range b {
			raw, _ := json.Marshal(v)
			if !strings.EqualFold(k, "aws:PrincipalArn") || strings.Contains(string(raw), "*") {
				continue
			}
			names := append([]any{}, iameval.ListOf(v)...)
			if r.IntN(2) == 0 {
				names = append(names, map[string]any{"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"})
			}
			delete(b, k)
			if len(b) == 0 {
				delete(c, op)
			}
			if len(c) == 0 {
				delete(st, "Condition")
			}
			delete(st, "Principal")
			st["NotPrincipal"] = map[string]any{"AWS": names}
			return
		}
	}
}

// boundaries are the permissions boundaries a variant may give a role.
var boundaries = []string{
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sqs:*","kms:*","logs:*"],"Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":["kms:*"],"Resource":"*"}]}`,
}

// addBoundary gives a role of the app, at random, a permissions boundary:
// a managed policy of its template.
func addBoundary(a *assembly, r *rand.Rand, touched map[uintptr]bool) {
	type role struct {
		t  *template
		id string
	}
	var roles []role
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if t.Resources[id].Type == "AWS::IAM::Role" {
				roles = append(roles, role{t, id})
			}
		}
	}
	if len(roles) == 0 {
		return
	}
	ro := roles[r.IntN(len(roles))]
	var doc map[string]any
	if err := json.Unmarshal([]byte(boundaries[r.IntN(len(boundaries))]), &doc); err != nil {
		panic(err)
	}
	for _, st := range doc["Statement"].([]any) {
		touched[reflect.ValueOf(st.(map[string]any)).Pointer()] = true
	}
	id := ro.id + "OracleBoundary"
	ro.t.Resources[id] = cfnmodel.Resource{Type: "AWS::IAM::ManagedPolicy", Properties: map[string]any{"PolicyDocument": doc}}
	ro.t.Resources[ro.id].Properties["PermissionsBoundary"] = map[string]any{"Ref": id}
}

// dumpSims renders each cell's request and policies with literal ARNs (each
// resource gets a distinct one; the response key the ARN a store in another
// app names it by) as an iam-simulate simulation.
func dumpSims(a *assembly, touched map[uintptr]bool) []any {
	m := a.accessMatrix(Config{})
	reaches := func(stmts []statement) bool {
		for _, s := range stmts {
			if s.Source != nil && touched[reflect.ValueOf(s.Source).Pointer()] {
				return true
			}
		}
		return false
	}
	lit := &literals{a: a, keys: responseKeyLiterals(a, m)}
	var sims []any
	for i, c := range m.Cells {
		p, r := m.Principal(c.Principal), m.Target(c.Resource)
		var boundary []statement
		if p.Boundary != nil {
			boundary = p.Boundary.Statements
		}
		if touched != nil && !reaches(r.Policy) && !reaches(p.Identity) && !reaches(boundary) {
			continue
		}
		sims = append(sims, map[string]any{"cell": c, "simulation": lit.simulation(m.RequestOf(i), p, r)})
	}
	return sims
}

// literals renders the model's identities as literal ARNs: each resource
// of the assembly gets a distinct one, a key the one keys holds for it.
type literals struct {
	a    *assembly
	keys map[string]string // key res ident -> literal used in the app
}

// responseKeyLiterals is the response key as a store in another app names
// it: by a literal key ARN of its account and region (the evaluator's one
// assumption).
func responseKeyLiterals(a *assembly, m *accessmodel.Matrix) map[string]string {
	out := map[string]string{}
	rk := m.Target("response-key")
	if rk == nil {
		return out
	}
	for _, t := range a.Templates {
		for _, id := range t.IDsOf("AWS::IAM::Policy") {
			for _, s := range iameval.Parse(t.Resources[id].Properties["PolicyDocument"], nil, "") {
				for _, res := range iameval.StringsOf(s.Resource) {
					if strings.HasPrefix(res, "arn:aws:kms:") && iameval.ARNAccount(res) == rk.Account {
						out[rk.Aliases[0]] = res
					}
				}
			}
		}
	}
	return out
}

// arn is the literal ARN of a resource identity (with its object suffix).
func (l *literals) arn(id string) string {
	rest := strings.TrimPrefix(id, "res:")
	file, lid, _ := strings.Cut(rest, "#")
	suffix := ""
	if i := strings.Index(lid, "/"); i >= 0 {
		lid, suffix = lid[:i], lid[i:]
	}
	var tt *template
	for _, x := range l.a.Templates {
		if x.Path == file {
			tt = x
		}
	}
	r := tt.Resources[lid]
	name := func(k, fallback string) string {
		if s, _ := r.Properties[k].(string); s != "" {
			return s
		}
		return fallback
	}
	var arn string
	switch r.Type {
	case "AWS::SQS::Queue":
		arn = fmt.Sprintf("arn:aws:sqs:%s:%s:%s", tt.Region, tt.Account, name("QueueName", tt.Stack+"-"+lid))
	case "AWS::SNS::Topic":
		arn = fmt.Sprintf("arn:aws:sns:%s:%s:%s", tt.Region, tt.Account, name("TopicName", lid))
	case "AWS::KMS::Key":
		arn = fmt.Sprintf("arn:aws:kms:%s:%s:key/%s-%s", tt.Region, tt.Account, tt.Stack, lid)
		if k, ok := l.keys[id]; ok {
			arn = k
		}
	case "AWS::IAM::Role":
		// A handler's path is contract.HandlerRolePath: the locks match it.
		arn = fmt.Sprintf("arn:aws:iam::%s:role%s%s", tt.Account, name("Path", "/"), name("RoleName", lid))
	case "AWS::S3::Bucket":
		arn = "arn:aws:s3:::" + strings.ToLower(tt.Stack+"-"+lid)
	case "AWS::Logs::LogGroup":
		arn = fmt.Sprintf("arn:aws:logs:%s:%s:log-group:%s:*", tt.Region, tt.Account, lid)
	default:
		arn = "arn:aws:unknown:::" + lid
	}
	return arn + suffix
}

// render is v with every resource identity and intrinsic as a literal.
func (l *literals) render(t *template, v any) any {
	switch x := v.(type) {
	case string:
		if cfnmodel.IsResourceIdent(x) {
			return l.arn(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = l.render(t, e)
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			for k := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					id := l.a.Ident(t, x)
					if cfnmodel.IsResourceIdent(id) {
						return l.arn(id)
					}
					return id
				}
			}
		}
		out := map[string]any{}
		for k, e := range x {
			out[k] = l.render(t, e)
		}
		return out
	}
	return v
}

// doc is stmts as a literal policy document.
func (l *literals) doc(stmts []statement) map[string]any {
	var list []any
	for _, s := range stmts {
		m := map[string]any{"Effect": s.Effect}
		for k, v := range map[string]any{"Principal": s.Principal, "NotPrincipal": s.NotPrincipal, "Action": s.Action, "NotAction": s.NotAction, "Resource": s.Resource, "NotResource": s.NotResource} {
			if v != nil {
				m[k] = l.render(templateOf(s), v)
			}
		}
		if len(s.Condition) > 0 {
			m["Condition"] = l.render(templateOf(s), s.Condition)
		}
		list = append(list, m)
	}
	return map[string]any{"Version": "2012-10-17", "Statement": list}
}

// simulation is req of p against r as iam-simulate's input, in literals.
func (l *literals) simulation(req iameval.Request, p *accessmodel.Principal, r *accessmodel.Target) map[string]any {
	ctx := map[string]any{}
	for k, v := range req.Ctx {
		var vals []string
		for _, x := range v {
			if cfnmodel.IsResourceIdent(x) {
				x = l.arn(x)
			}
			if strings.Contains(x, "*") || (k == "aws:principalarn" && !strings.HasPrefix(x, "arn:aws:iam:")) {
				continue
			}
			vals = append(vals, x)
		}
		if len(vals) > 0 {
			ctx[k] = vals[0]
		}
	}
	principalArn := p.Service
	if principalArn == "" {
		principalArn = requestPrincipal(p, l.arn)
	}
	resArn := r.Aliases[0]
	if cfnmodel.IsResourceIdent(resArn) {
		resArn = l.arn(resArn)
	}
	s := map[string]any{
		"request": map[string]any{"principal": principalArn, "action": req.Action,
			"resource": map[string]any{"resource": resArn, "accountId": r.Account}, "contextVariables": ctx},
		"identityPolicies":        []any{},
		"serviceControlPolicies":  []any{},
		"resourceControlPolicies": []any{},
	}
	if p.Service == "" {
		s["identityPolicies"] = []any{map[string]any{"name": "identity", "policy": l.doc(p.Identity)}}
	}
	if len(r.Policy) > 0 {
		s["resourcePolicy"] = l.doc(r.Policy)
	}
	if p.Service == "" && p.Boundary != nil {
		s["permissionBoundaryPolicies"] = []any{map[string]any{"name": "boundary", "policy": l.doc(p.Boundary.Statements)}}
	}
	return s
}

// requestPrincipal is the ARN p makes its requests as: a role's session
// (the one the evaluator asked as; Lambda's is the function name, so a
// NotPrincipal that names it spares it in both), a federated user's session,
// an IAM user or the account's root user as they are.
func requestPrincipal(p *accessmodel.Principal, arnOf func(string) string) string {
	var role string
	for _, al := range p.Aliases {
		if strings.HasPrefix(al, "res:") {
			al = arnOf(al)
		}
		switch {
		case strings.HasPrefix(al, "arn:aws:sts::"), strings.HasSuffix(al, ":root"), strings.Contains(al, ":user/"):
			return al
		case strings.HasPrefix(al, "arn:aws:iam:"):
			role = al
		}
	}
	session := p.Session
	if session == "" {
		session = "session"
	}
	return fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", p.Account, role[strings.LastIndex(role, "/")+1:], session)
}

// templateOf is the template a statement was read from, nil for a built one.
func templateOf(s statement) *template {
	if sc, ok := s.Scope.(scope); ok {
		return sc.t
	}
	return nil
}
