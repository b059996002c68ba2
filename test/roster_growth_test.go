package test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// sharedPolicyTypes are the resource types whose documents the channel's
// shared resources carry: who may publish, subscribe, answer, use a key, and
// what the ledger's functions run with.
var sharedPolicyTypes = map[string]string{
	"AWS::SNS::TopicPolicy":           "PolicyDocument",
	"AWS::SQS::QueuePolicy":           "PolicyDocument",
	"AWS::KMS::Key":                   "KeyPolicy",
	"AWS::IAM::Policy":                "PolicyDocument",
	"AWS::Lambda::Function":           "Environment",
	"AWS::CloudWatch::Dashboard":      "DashboardBody",
	"AWS::IAM::Role":                  "Policies",
	"AWS::SNS::Subscription":          "FilterPolicy",
	"AWS::Lambda::EventSourceMapping": "FunctionName",
}

// sharedDocuments are the policy documents, environments and dashboard bodies
// of the channel's and the ledger's stacks, by stack, logical id and property.
func sharedDocuments(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for stack, tpl := range readTemplates(t, dir) {
		if strings.HasPrefix(stack, "Store") || strings.HasSuffix(stack, "Store") {
			continue
		}
		for id, r := range tpl.all() {
			prop, ok := sharedPolicyTypes[r["Type"].(string)]
			if !ok {
				continue
			}
			props, _ := r["Properties"].(map[string]any)
			b, _ := json.Marshal(props[prop])
			out[stack+"/"+id+"."+prop] = string(b)
		}
	}
	return out
}

// TestAStoreInAKnownAccountChangesNoSharedPolicy: a store that joins an
// account already on the roster changes the roster's data (the response
// queue's metadata, the ledger's SSM pages) and no policy, environment or
// dashboard of the channel's or the ledger's stacks: byte for byte the same.
// A store in a new account changes the policies that list the roster's
// accounts, and only by that account's id.
func TestAStoreInAKnownAccountChangesNoSharedPolicy(t *testing.T) {
	before := sharedDocuments(t, orgApp(t))
	if len(before) < 10 {
		t.Fatalf("only %d shared documents found: the test reads nothing", len(before))
	}
	// The seventh extra store lands in the third of the four store accounts.
	dir, err := synthOrganisation(7, 4)
	defer os.RemoveAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	after := sharedDocuments(t, dir)
	var changed []string
	for k, v := range before {
		if after[k] != v {
			changed = append(changed, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			changed = append(changed, k+" (new)")
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Errorf("a store in a known account changed %d shared documents: %v", len(changed), changed)
	}
	// The roster itself did change: the channel's template is not the same.
	was, _ := os.ReadFile(orgApp(t) + "/ErasureChannel.template.json")
	now, _ := os.ReadFile(dir + "/ErasureChannel.template.json")
	if len(was) == 0 || string(was) == string(now) {
		t.Error("the channel's template is unchanged by a new store: the roster did not take it, and the test compares nothing")
	}
	// A store in a fifth store account: the roster's accounts grow by one id.
	dir5, err := synthOrganisation(5, 5)
	defer os.RemoveAll(dir5)
	if err != nil {
		t.Fatal(err)
	}
	grown := sharedDocuments(t, dir5)
	const newAccount = "300000000004"
	for k, v := range grown {
		if was, ok := before[k]; ok && was != v && !strings.Contains(v, newAccount) {
			t.Errorf("a store in a new account changed %s beyond naming the account", k)
		}
	}
}
