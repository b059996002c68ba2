package test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// testOrganization is the AWS organisation the organisation form's tests admit.
const testOrganization = "o-exampleorg01"

// channelTeamApp is the channel team's app of an organisation: the channel,
// the ledger and the dashboard, with stores more stores on the roster over
// accounts store accounts, deployed by their teams' own apps
// (erasure:storesElsewhere); org "" names the roster's accounts instead.
func channelTeamApp(t *testing.T, stores, accounts int, org string) string {
	t.Helper()
	ctx := map[string]any{"erasure:storesElsewhere": true}
	if org != "" {
		ctx["erasure:organizationId"] = org
	}
	dir, err := synthOrganisationWith(stores, accounts, ctx)
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOrganisationPoliciesOfConstantSize: with ErasureChannelProps.
// OrganizationID, no shared policy, environment or dashboard of the channel's
// and the ledger's stacks changes from 6 stores over 4 accounts to 600 stores
// over 300 accounts (byte for byte), and the channel's template grows by the
// digits of its roster's size alone; the roster's names are in the cloud
// assembly, whole. Named by account, the response queue's policy grows with
// every account: what the organisation form removes.
func TestOrganisationPoliciesOfConstantSize(t *testing.T) {
	small := channelTeamApp(t, 6, 4, testOrganization)
	large := channelTeamApp(t, 600, 300, testOrganization)
	before, after := sharedDocuments(t, small), sharedDocuments(t, large)
	if len(before) < 10 {
		t.Fatalf("only %d shared documents found: the test reads nothing", len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed from 4 to 300 store accounts", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s is new at 300 store accounts", k)
		}
	}
	size := func(dir string) int {
		fi, err := os.Stat(filepath.Join(dir, "ErasureChannel.template.json"))
		if err != nil {
			t.Fatal(err)
		}
		return int(fi.Size())
	}
	if d := size(large) - size(small); d < 0 || d > 2 {
		t.Errorf("the channel's template grew by %d bytes from 9 to 603 roster stores, want the roster size's digits alone", d)
	}
	names, err := erasurecheck.Roster([]string{large})
	if err != nil || len(names) != 603 {
		t.Fatalf("the assembly's roster holds %d names (%v), want 603", len(names), err)
	}
	raw, _ := os.ReadFile(filepath.Join(large, "ErasureChannel.template.json"))
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatal(err)
	}
	b := compact.Bytes()
	if strings.Contains(string(b), names[0]) || strings.Contains(string(b), "300000000299") {
		t.Error("the channel's template names a roster store or store account")
	}
	if !strings.Contains(string(b), `"aws:PrincipalOrgID":"`+testOrganization+`"`) {
		t.Error("the channel's policies do not admit the organisation")
	}

	// The account form, for contrast: each new account is named.
	byAccount := func(dir string) int {
		for id, r := range readTemplates(t, dir)["ErasureChannel"].all() {
			if r["Type"] == "AWS::SQS::QueuePolicy" && strings.Contains(id, "ResponseQueuePolicy") {
				b, _ := json.Marshal(r["Properties"].(map[string]any)["PolicyDocument"])
				return len(b)
			}
		}
		t.Fatal("no response queue policy")
		return 0
	}
	few, many := byAccount(channelTeamApp(t, 6, 4, "")), byAccount(channelTeamApp(t, 60, 30, ""))
	if many-few < 26*15 {
		t.Errorf("named by account, the response queue's policy grew by %d bytes for 26 more accounts: the contrast is gone", many-few)
	}
}

// TestOrganisationAccessMatrix: the organisation form's access matrix holds
// in every cell, asking every account's witnesses (Config.EveryAccount):
// among them a role under the handler path of an account of the
// organisation that is off the roster, which the shared policies admit to
// answer (the ledger's reader refuses it by role id), and one of an account
// outside the organisation, which they deny; neither may subscribe or use
// the topic.
func TestOrganisationAccessMatrix(t *testing.T) {
	dir, err := synthOrganisationWith(6, 4, map[string]any{"erasure:organizationId": testOrganization})
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err != nil {
		t.Fatal(err)
	}
	handler := "/" + strings.TrimSuffix(contract.HandlerNamePrefix, "-")
	for _, every := range []bool{true, false} {
		m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{EveryAccount: every})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Failing() {
			t.Errorf("every account %v: %s %s %s: want %s, got %s (%s)", every, c.Principal, c.Action, c.Resource, c.Want, c.Got, c.Because)
		}
		// Asked of every account, the witnesses of the two standings are
		// there by name; asked by class, one account of each standing must
		// still be asked: an account of the organisation that is not the
		// channel's, and one outside it.
		inOrg := func(p string) bool {
			return strings.HasPrefix(p, "pattern/an-account-of-the-organisation"+handler) ||
				!every && strings.HasPrefix(p, "pattern/") && strings.Contains(p, handler) && !strings.HasPrefix(p, "pattern/111111111111") && !strings.HasPrefix(p, "pattern/any-account")
		}
		outside := func(p string) bool { return strings.HasPrefix(p, "pattern/any-account"+handler) }
		seen := map[string]bool{}
		for _, c := range m.Cells {
			want, label := iameval.Denied, ""
			switch {
			case inOrg(c.Principal):
				want, label = iameval.Allowed, "in the organisation, off the roster"
			case outside(c.Principal):
				label = "outside the organisation"
			default:
				continue
			}
			switch {
			case c.Resource == "response-queue" && c.Action == "sqs:SendMessage":
				seen[label] = true
				if c.Got != want {
					t.Errorf("every account %v: %s (%s) may send an answer: %s, want %s", every, c.Principal, label, c.Got, want)
				}
			case c.Resource == "topic" && (c.Action == "sns:Publish" || strings.HasPrefix(c.Action, "sns:Subscribe")):
				if c.Got != iameval.Denied {
					t.Errorf("%s %s the topic: %s", c.Principal, c.Action, c.Got)
				}
			}
		}
		for _, label := range []string{"in the organisation, off the roster", "outside the organisation"} {
			if !seen[label] {
				t.Errorf("every account %v: no handler-path witness %s is asked to answer: the matrix does not cover the class", every, label)
			}
		}
	}
}

// TestStoreLookupRole: a store outside the channel's account makes, in its
// own stack, the one role through which the ledger's reader learns its
// handler role's id: assumable by the ledger's reader role of the channel's
// account alone (by ARN, so that it need not exist yet), allowed iam:GetRole
// on the store's handler role alone, named from the store's name under
// contract.RosterLookupRolePath. A store in the channel's account makes none:
// the ledger reads its id there itself.
func TestStoreLookupRole(t *testing.T) {
	app := defaultApp(t)
	for _, stack := range []string{"SpaceStore", "BitmapStore"} {
		for _, r := range app[stack].resources("AWS::IAM::Role") {
			if r["Properties"].(map[string]any)["Path"] == contract.RosterLookupRolePath {
				t.Errorf("%s, in the channel's account, makes a lookup role", stack)
			}
		}
	}
	handlerID, _ := app["LedgerStore"].handlerRole(t)
	var lookup map[string]any
	for _, r := range app["LedgerStore"].resources("AWS::IAM::Role") {
		if p := r["Properties"].(map[string]any); p["Path"] == contract.RosterLookupRolePath {
			lookup = p
		}
	}
	if lookup == nil {
		t.Fatal("the store in another account makes no lookup role")
	}
	if lookup["RoleName"] != contract.RosterLookupRoleName("ledger") {
		t.Errorf("the lookup role is named %v, want %s", lookup["RoleName"], contract.RosterLookupRoleName("ledger"))
	}
	trust, _ := json.Marshal(lookup["AssumeRolePolicyDocument"])
	want := `{"Statement":[{"Action":"sts:AssumeRole","Condition":{"ArnEquals":{"aws:PrincipalArn":{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":iam::111111111111:role/` +
		contract.LedgerReaderRoleName + `"]]}}},"Effect":"Allow","Principal":{"AWS":{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":iam::111111111111:root"]]}}}],"Version":"2012-10-17"}`
	if string(trust) != want {
		t.Errorf("the lookup role trusts\n%s\nwant the ledger's reader alone\n%s", trust, want)
	}
	policies, _ := json.Marshal(lookup["Policies"])
	wantPolicy := `[{"PolicyDocument":{"Statement":[{"Action":"iam:GetRole","Effect":"Allow","Resource":{"Fn::GetAtt":["` + handlerID + `","Arn"]}}],"Version":"2012-10-17"},"PolicyName":"ReadTheHandlerRoleId"}]`
	if string(policies) != wantPolicy {
		t.Errorf("the lookup role may\n%s\nwant iam:GetRole on the handler role alone\n%s", policies, wantPolicy)
	}
	for _, p := range app["LedgerStore"].resources("AWS::IAM::Policy") {
		b, _ := json.Marshal(p)
		if strings.Contains(string(b), "RosterLookupRole") {
			t.Errorf("another policy grants the lookup role more: %s", b)
		}
	}
}
