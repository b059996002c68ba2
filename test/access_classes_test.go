package test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/stacks"
)

var (
	orgOnce sync.Once
	orgDir  string
	orgErr  error
)

// orgApp synthesizes the example app with six more stores spread over four
// store accounts (six accounts in all), once per test binary: the smallest
// organisation in which accounts share a class towards a policy.
func orgApp(t *testing.T) string {
	t.Helper()
	orgOnce.Do(func() { orgDir, orgErr = synthOrganisation(6, 4) })
	if orgErr != nil {
		t.Fatal(orgErr)
	}
	return orgDir
}

// synthOrganisation synthesizes the example app with stores more stores
// spread over accounts store accounts (erasure:extraStores,
// erasure:extraAccounts), nag and the check off, into a new directory.
func synthOrganisation(stores, accounts int) (string, error) {
	return synthOrganisationWith(stores, accounts, nil)
}

// synthOrganisationWith is synthOrganisation with more context values.
func synthOrganisationWith(stores, accounts int, more map[string]any) (string, error) {
	dir, err := os.MkdirTemp("", "erasure-org-app")
	if err != nil {
		return "", err
	}
	props, err := stacks.LocalAppProps("../cdk.json", dir)
	if err != nil {
		return "", err
	}
	ctx := *props.Context
	ctx["erasure:extraStores"], ctx["erasure:extraAccounts"], ctx["erasure:realisticNames"] = stores, accounts, true
	ctx["erasure:nag"], ctx["erasure:check"] = false, false
	for k, v := range more {
		ctx[k] = v
	}
	props.Context = &ctx
	props.Outdir = jsii.String(dir)
	_, err = stacks.Synthesize(props)
	return dir, err
}

var accountID = regexp.MustCompile(`\b\d{12}\b`)

// failingClasses are the failing cells of m by resource, action and class,
// each account id in an action's endpoint label written as #: what a broken
// policy breaks, whichever account of a class the matrix asked.
func failingClasses(m *accessmodel.Matrix) map[string]bool {
	out := map[string]bool{}
	for _, c := range m.Failing() {
		out[fmt.Sprintf("%s %s %s want %s got %s", c.Resource, accountID.ReplaceAllString(c.Action, "#"), c.Class, c.Want, c.Got)] = true
	}
	return out
}

// TestAccountClassesDecideAsEveryAccount: the matrix asks each resource the
// witnesses of one account of each class its policy draws; over randomly
// broken policies of an organisation of six accounts it fails exactly the
// cells (by resource, action and class) that asking every account's
// witnesses fails. The oracle is the matrix with Config.EveryAccount.
func TestAccountClassesDecideAsEveryAccount(t *testing.T) {
	classesDecideAsEveryAccount(t, orgApp(t))
}

// TestAccountClassesDecideAsEveryAccountInAnOrganisation: the same, for a
// channel that admits its organisation (aws:PrincipalOrgID): the classes
// then also tell an account of the organisation off the roster from one
// outside it.
func TestAccountClassesDecideAsEveryAccountInAnOrganisation(t *testing.T) {
	dir, err := synthOrganisationWith(6, 4, map[string]any{"erasure:organizationId": testOrganization})
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err != nil {
		t.Fatal(err)
	}
	classesDecideAsEveryAccount(t, dir)
}

func classesDecideAsEveryAccount(t *testing.T, src string) {
	base := readTemplates(t, src)
	var accounts []string
	for _, tpl := range base {
		b, _ := json.Marshal(tpl)
		accounts = append(accounts, accountID.FindAllString(string(b), -1)...)
	}
	accounts = append(sortedUnique(accounts), "444444444444")
	if len(accounts) < 6 {
		t.Fatalf("the organisation names %d accounts, want at least 6", len(accounts))
	}
	broken := 0
	const variants = 40
	for v := 1; v <= variants; v++ {
		r := rand.New(rand.NewPCG(uint64(v), 30))
		dir := copyAssembly(t, src)
		tpls := readTemplates(t, dir)
		edits := breakPolicies(r, tpls, accounts)
		writeTemplates(t, dir, tpls)
		classes, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
		if err != nil {
			t.Fatal(err)
		}
		every, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{EveryAccount: true})
		if err != nil {
			t.Fatal(err)
		}
		got, want := failingClasses(classes), failingClasses(every)
		if len(want) > 0 {
			broken++
		}
		for k := range want {
			if !got[k] {
				t.Errorf("variant %d (%s): asking every account fails %s; the classes do not", v, edits, k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("variant %d (%s): the classes fail %s; asking every account does not", v, edits, k)
			}
		}
		if len(classes.Cells) >= len(every.Cells) {
			t.Errorf("variant %d: the classes ask %d cells, every account %d: nothing is saved", v, len(classes.Cells), len(every.Cells))
		}
	}
	if broken < variants/2 {
		t.Fatalf("only %d of %d variants break a cell: the edits test nothing", broken, variants)
	}
}

func sortedUnique(list []string) []string {
	sort.Strings(list)
	var out []string
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// breakPolicies edits one to three statements of the app's resource policies
// at random, the way a hurried change would, naming the accounts of the
// organisation (one by id, by root, by role pattern, a list of them, a prefix
// of one; in an edited statement or an added Allow) as often as everyone; it
// says what it did.
func breakPolicies(r *rand.Rand, tpls map[string]template, accounts []string) string {
	docs := policyDocs(tpls)
	pick := func() string { return accounts[r.IntN(len(accounts))] }
	var did []string
	for n := 0; n < 1+r.IntN(3); n++ {
		ref := docs[r.IntN(len(docs))]
		list, _ := ref.doc["Statement"].([]any)
		if len(list) == 0 {
			continue
		}
		st := list[r.IntN(len(list))].(map[string]any)
		op := r.IntN(14)
		did = append(did, fmt.Sprintf("%s/%s %v: %d", ref.stack, ref.id, st["Sid"], op))
		switch op {
		case 0:
			delete(st, "Condition")
		case 1:
			if st["Effect"] == "Allow" {
				st["Effect"] = "Deny"
			} else {
				st["Effect"] = "Allow"
			}
		case 2:
			st["Principal"] = "*"
			delete(st, "NotPrincipal")
		case 3:
			st["Principal"] = map[string]any{"AWS": "arn:aws:iam::" + pick() + ":root"}
			delete(st, "NotPrincipal")
		case 4:
			st["Principal"] = map[string]any{"AWS": pick()}
			delete(st, "NotPrincipal")
		case 5:
			st["Condition"] = map[string]any{"StringEquals": map[string]any{"aws:PrincipalAccount": []any{pick(), pick()}}}
		case 6:
			st["Condition"] = map[string]any{"ArnLike": map[string]any{"aws:PrincipalArn": "arn:aws:iam::" + pick() + ":role/*"}}
		case 7:
			st["Condition"] = map[string]any{"StringLike": map[string]any{"aws:PrincipalAccount": pick()[:3] + "*"}}
		case 8:
			st["Action"] = "*"
			delete(st, "NotAction")
		case 10:
			list = append(list, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::" + pick() + ":root"}, "Action": "*", "Resource": "*"})
		case 11:
			list = append(list, map[string]any{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
				"Condition": map[string]any{"StringEquals": map[string]any{"aws:PrincipalAccount": pick()}}})
		case 12:
			st["Condition"] = map[string]any{"StringEquals": map[string]any{"aws:PrincipalOrgID": testOrganization}}
		case 13:
			list = append(list, map[string]any{"Effect": "Deny", "Principal": "*", "Action": "*", "Resource": "*",
				"Condition": map[string]any{"StringNotEquals": map[string]any{"aws:PrincipalOrgID": testOrganization}}})
		case 9:
			if c, ok := st["Condition"].(map[string]any); ok {
				for _, op := range sortedKeys(c) {
					v := c[op]
					delete(c, op)
					switch {
					case strings.Contains(op, "Not"):
						c[strings.Replace(op, "Not", "", 1)] = v
					case strings.HasPrefix(op, "String") || strings.HasPrefix(op, "Arn"):
						c[strings.Replace(strings.Replace(op, "String", "StringNot", 1), "Arn", "ArnNot", 1)] = v
					default:
						c[op] = v
					}
					break
				}
			}
		}
		ref.doc["Statement"] = list
	}
	return strings.Join(did, "; ")
}
