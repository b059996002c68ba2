package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// cellKey names one cell of the access matrix.
type cellKey struct{ principal, action, resource string }

func (k cellKey) String() string { return k.principal + " " + k.action + " " + k.resource }

// requiredCells are the cells the issue names, for the example app's
// channel, same-account store (space), store in another account (ledger)
// and bitmap store: the matrix must contain each, with this decision.
var requiredCells = map[cellKey]iameval.Decision{
	{"account-service", "sns:Publish", "topic"}:                                   iameval.Allowed,
	{"account-service", "kms:GenerateDataKey", "topic-key"}:                       iameval.Allowed,
	{"account-service", "sqs:ReceiveMessage", "response-queue"}:                   iameval.Allowed,
	{"account-service", "kms:Decrypt", "response-key"}:                            iameval.Allowed,
	{"sns/erasure-topic", "sqs:SendMessage", "queue/space"}:                       iameval.Allowed,
	{"sns/erasure-topic", "kms:GenerateDataKey", "queue-key/ledger"}:              iameval.Allowed,
	{"handler/ledger", "sqs:ReceiveMessage", "queue/ledger"}:                      iameval.Allowed,
	{"handler/ledger", "kms:Decrypt", "queue-key/ledger"}:                         iameval.Allowed,
	{"handler/ledger", "sqs:SendMessage", "response-queue"}:                       iameval.Allowed,
	{"handler/ledger", "kms:GenerateDataKey", "response-key"}:                     iameval.Allowed,
	{"handler/space", "sqs:SendMessage", "queue/space"}:                           iameval.Allowed,
	{"handler/bitmaps", "s3:PutObject", "bucket-objects/bitmaps"}:                 iameval.Allowed,
	{"handler/bitmaps", "kms:GenerateDataKey", "bucket-key/bitmaps"}:              iameval.Allowed,
	{"other/111111111111", "sqs:SendMessage", "response-queue"}:                   iameval.Denied,
	{"other/222222222222", "sqs:SendMessage", "response-queue"}:                   iameval.Denied,
	{"other/111111111111", "sqs:ReceiveMessage", "queue/space"}:                   iameval.Denied,
	{"other/222222222222", "sqs:ReceiveMessage", "queue/ledger"}:                  iameval.Denied,
	{"sns/another-topic/111111111111", "sqs:SendMessage", "queue/space"}:          iameval.Denied,
	{"sns/another-topic/222222222222", "kms:GenerateDataKey", "queue-key/ledger"}: iameval.Denied,
	// The lockdown: publishing, subscribing, injecting, consuming, administering.
	{"other/111111111111", "sns:Publish", "topic"}:                                  iameval.Denied,
	{"other/any-account", "sns:Publish", "topic"}:                                   iameval.Denied,
	{"admin/111111111111", "sns:Publish", "topic"}:                                  iameval.Denied,
	{"admin/111111111111", "sns:Subscribe(sqs:queue/space)", "topic"}:               iameval.Allowed,
	{"admin/222222222222", "sns:Subscribe(sqs:queue/ledger)", "topic"}:              iameval.Allowed,
	{"admin/222222222222", "sns:Subscribe(sqs:queue/space)", "topic"}:               iameval.Denied,
	{"admin/111111111111", "sns:Subscribe(https:not-a-queue)", "topic"}:             iameval.Denied,
	{"admin/111111111111", "sns:Subscribe(lambda:queue/space)", "topic"}:            iameval.Denied,
	{"admin/111111111111", "sns:Subscribe(sqs:a-queue-of/111111111111)", "topic"}:   iameval.Denied,
	{"other/111111111111", "sns:Subscribe(sqs:queue/space)", "topic"}:               iameval.Denied,
	{"account-service", "sqs:SendMessage", "queue/space"}:                           iameval.Denied,
	{"other/222222222222", "sqs:SendMessage", "queue/ledger"}:                       iameval.Denied,
	{"service/events.amazonaws.com/111111111111", "sqs:SendMessage", "queue/space"}: iameval.Denied,
	{"other/111111111111", "sqs:SendMessage", "dlq/space"}:                          iameval.Denied,
	{"admin/111111111111", "sqs:ReceiveMessage", "dlq/space"}:                       iameval.Allowed,
	{"other/111111111111", "sqs:ReceiveMessage", "response-queue"}:                  iameval.Denied,
	{"other/111111111111", "sqs:PurgeQueue", "response-queue"}:                      iameval.Denied,
	{"admin/111111111111", "sqs:PurgeQueue", "response-queue"}:                      accessmodel.Either, // not a handler permission: the operator's to harden
	{"admin/111111111111", "sqs:SetQueueAttributes", "response-queue"}:              iameval.Allowed,    // AWS::SQS::Queue's and QueuePolicy's handlers call it
	{"other/111111111111", "sqs:SetQueueAttributes", "queue/space"}:                 iameval.Denied,
	{"other/111111111111", "kms:Decrypt", "queue-key/space"}:                        iameval.Denied,
	{"other/111111111111", "kms:CreateGrant", "response-key"}:                       iameval.Denied,
	{"other/111111111111", "s3:GetObjectVersion", "bucket-objects/bitmaps"}:         iameval.Denied,
	{"other/111111111111", "s3:PutBucketPolicy", "bucket/bitmaps"}:                  iameval.Denied,
}

// representedCells are decided for their class by a witness (the handler's
// identity does not reach the resource, nor does its policy name it): the
// matrix's Decide must still deny them.
var representedCells = []cellKey{
	{"handler/space", "sqs:ReceiveMessage", "queue/bitmaps"},
	{"handler/space", "kms:Decrypt", "queue-key/ledger"},
	{"handler/space", "s3:GetObject", "bucket-objects/bitmaps"},
	{"handler/ledger", "kms:Decrypt", "bucket-key/bitmaps"},
	{"handler/space", "sqs:SendMessage", "queue/ledger"},
}

func cellsByKey(m *accessmodel.Matrix) map[cellKey]accessmodel.Cell {
	out := map[cellKey]accessmodel.Cell{}
	for _, c := range m.Cells {
		out[cellKey{c.Principal, c.Action, c.Resource}] = c
	}
	return out
}

// TestAccessMatrixOfTheExampleApp: over the example app's synthesized
// policies every cell holds (the CLI exits 0), and every cell the channel's
// threat model names is there.
func TestAccessMatrixOfTheExampleApp(t *testing.T) {
	defaultApp(t)
	m, err := erasurecheck.Access([]string{defaultDir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Failing() {
		t.Errorf("cell does not hold: %s %s %s: want %s, the policies say %s (%s)", c.Principal, c.Action, c.Resource, c.Want, c.Got, c.Because)
	}
	got := cellsByKey(m)
	for k, want := range requiredCells {
		if c, ok := got[k]; !ok {
			t.Errorf("the matrix has no cell %s", k)
		} else if c.Want != want {
			t.Errorf("cell %s: the matrix wants %s, the threat model %s", k, c.Want, want)
		}
	}
	for _, k := range representedCells {
		if d := m.Decide(k.principal, k.action, k.resource); d != iameval.Denied {
			t.Errorf("%s: %s, want denied", k, d)
		}
	}
	out, err := exec.Command(erasurectlBinary(t), "access", defaultDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("access matrix: %d cells, 0 do not hold", len(m.Cells))) {
		t.Errorf("erasurectl access over the example app: want exit 0 and every cell holding, got %v\n%s", err, out)
	}
	if rows := strings.Count(string(out), "\nok  "); rows != len(m.Cells) {
		t.Errorf("erasurectl access printed %d rows of %d cells", rows, len(m.Cells))
	}
	// A table past --max-rows is not printed whole: the verdict, the classes
	// and the failing cells (none here), and a line that says so.
	out, err = exec.Command(erasurectlBinary(t), "access", "--max-rows", "1000", defaultDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("the table's %d cells are past --max-rows 1000: only the 0 failing cells follow", len(m.Cells))) ||
		strings.Contains(string(out), "\nok  ") {
		t.Errorf("erasurectl access --max-rows 1000: want exit 0, the verdict and no row, got %v\n%s", err, out)
	}
}

// policyDocs are every resource policy and key policy of the assembly's
// templates: stack, logical id, and the document.
type policyDocRef struct {
	stack, id string
	doc       map[string]any
}

func policyDocs(tpls map[string]template) []policyDocRef {
	var out []policyDocRef
	for _, stack := range sortedKeys(tpls) {
		for _, typ := range []string{"AWS::SQS::QueuePolicy", "AWS::SNS::TopicPolicy", "AWS::S3::BucketPolicy", "AWS::KMS::Key"} {
			res := tpls[stack].resources(typ)
			for _, id := range sortedKeys(res) {
				props := res[id]["Properties"].(map[string]any)
				doc, _ := props["PolicyDocument"].(map[string]any)
				if typ == "AWS::KMS::Key" {
					doc, _ = props["KeyPolicy"].(map[string]any)
				}
				out = append(out, policyDocRef{stack, id, doc})
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withoutStatement copies the example app's assembly without statement i of
// ref's policy, and returns the copy and its access matrix.
func withoutStatement(t *testing.T, ref policyDocRef, i int) (string, *accessmodel.Matrix) {
	t.Helper()
	dir := copyAssembly(t, defaultDir)
	tpls := readTemplates(t, dir)
	for _, r := range policyDocs(tpls) {
		if r.stack == ref.stack && r.id == ref.id {
			list := r.doc["Statement"].([]any)
			r.doc["Statement"] = append(append([]any{}, list[:i]...), list[i+1:]...)
		}
	}
	writeTemplates(t, dir, tpls)
	m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// tlsOnly says whether a statement is CDK's deny of requests without TLS:
// the matrix asks every request over TLS, as every SDK sends it.
func tlsOnly(st map[string]any) bool {
	b, _ := json.Marshal(st["Condition"])
	return st["Effect"] == "Deny" && strings.Contains(string(b), `"aws:SecureTransport":"false"`)
}

// modelled says whether the matrix models a policy's resource: every queue,
// topic and bucket policy, and every key the constructs mark with its kind.
// The ErasureLedger's own key (the ledger's table and secret) is not on the
// channel's data path and not in the matrix (README, known limits).
func modelled(tpls map[string]template, ref policyDocRef) bool {
	r := tpls[ref.stack].all()[ref.id]
	if r["Type"] != "AWS::KMS::Key" {
		return true
	}
	meta, _ := r["Metadata"].(map[string]any)
	_, ok := meta[channelpolicy.KindMetadataKey]
	return ok
}

// TestEveryStatementOfThePoliciesIsNeeded: removing any one statement of any
// resource or key policy of the example app (each lock the constructs write,
// each grant SNS and the roster need) makes at least one cell of the access
// matrix fail, and the CLI exit 1. So no statement is there for show, and
// the matrix sees each one's loss: nothing it guards is left to a list.
func TestEveryStatementOfThePoliciesIsNeeded(t *testing.T) {
	defaultApp(t)
	base := readTemplates(t, defaultDir)
	removed := 0
	for _, ref := range policyDocs(base) {
		if !modelled(base, ref) {
			continue
		}
		for i, st := range ref.doc["Statement"].([]any) {
			sm := st.(map[string]any)
			if tlsOnly(sm) {
				continue
			}
			name := fmt.Sprintf("%s/%s statement %d %v", ref.stack, ref.id, i+1, sm["Sid"])
			dir, m := withoutStatement(t, ref, i)
			if len(m.Failing()) == 0 {
				t.Errorf("without %s every cell still holds: the matrix does not see what it guards", name)
			}
			if removed == 0 {
				out, err := exec.Command(erasurectlBinary(t), "access", "--failing", dir).CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "FAIL  ") {
					t.Errorf("erasurectl access without %s: want exit 1 naming a cell, got %v\n%s", name, err, out)
				}
			}
			removed++
		}
	}
	if removed < 40 {
		t.Errorf("only %d statements removed: the example app's policies are not all there", removed)
	}
	t.Logf("%d statements removed one at a time: each breaks a cell", removed)
}

// TestAccessMatrixFailsWhenAPolicyIsWidened: each edit below widens (or
// narrows, or muddles) the example app's synthesized policies the way a
// hurried change would; the matrix must name the cell it breaks, and the CLI
// must exit 1.
func TestAccessMatrixFailsWhenAPolicyIsWidened(t *testing.T) {
	defaultApp(t)
	cases := []struct {
		name  string
		edit  func(t *testing.T, tpls map[string]template)
		broke cellKey
	}{
		{"the roster's allow and deny both without condition", openRoster, cellKey{"other/222222222222", "sqs:SendMessage", "response-queue"}},
		{"a handler loses its answer grant (narrowed)", dropAnswerGrant, cellKey{"handler/space", "sqs:SendMessage", "response-queue"}},
		{"a deny the evaluator cannot judge", addUnjudgeableDeny, cellKey{"account-service", "sqs:ReceiveMessage", "response-queue"}},
		{"a second queue policy on a store queue", func(t *testing.T, tpls map[string]template) {
			res := tpls["SpaceStore"]["Resources"].(map[string]any)
			for id, r := range tpls["SpaceStore"].resources("AWS::SQS::QueuePolicy") {
				props := r["Properties"].(map[string]any)
				if !strings.Contains(fmt.Sprint(props["Queues"]), "ErasureSubscriberQueue3CE73904") || strings.Contains(fmt.Sprint(props["Queues"]), "DeadLetter") {
					continue
				}
				res[id+"Extra"] = map[string]any{"Type": "AWS::SQS::QueuePolicy", "Properties": map[string]any{"Queues": props["Queues"],
					"PolicyDocument": map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": "Allow",
						"Principal": map[string]any{"AWS": "arn:aws:iam::111111111111:root"}, "Action": "sqs:SendMessage", "Resource": "*"}}}}}
				return
			}
			t.Fatal("no queue policy of space's queue")
		}, cellKey{"other/111111111111", "sqs:SendMessage", "queue/space"}},
		{"a NotPrincipal deny that names the handlers' roles, not their sessions", func(t *testing.T, tpls map[string]template) {
			// AWS matches a role's request by its session ARN: listing the
			// roles (and their account) still denies every handler.
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer")
			addStatement(t, doc, map[string]any{"Effect": "Deny", "Action": "sqs:SendMessage", "Resource": "*",
				"NotPrincipal": map[string]any{"AWS": []any{contract.HandlerRoleARN("aws", "111111111111", "space"), contract.HandlerRoleARN("aws", "111111111111", "bitmaps"),
					contract.HandlerRoleARN("aws", "222222222222", "ledger"), "arn:aws:iam::111111111111:root", "arn:aws:iam::222222222222:root"}}})
		}, cellKey{"handler/space", "sqs:SendMessage", "response-queue"}},
		{"the answer lock exempts the channel account's root user", func(t *testing.T, tpls map[string]template) {
			// The root user is a class of its own: no role witness stands for it.
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer")
			widenCondition(t, doc, "OnlyRosterHandlersAnswer", "aws:PrincipalArn", "arn:aws:iam::111111111111:root")
		}, cellKey{"root/111111111111", "sqs:SendMessage", "response-queue"}},
		{"the response queue's TLS-only deny removed", func(t *testing.T, tpls map[string]template) {
			// Every cell is also asked without TLS: the reader's receive over
			// plain HTTP must stay denied.
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "RosterSendResponses")
			var keep []any
			for _, st := range doc["Statement"].([]any) {
				if b, _ := json.Marshal(st.(map[string]any)["Condition"]); !strings.Contains(string(b), "aws:SecureTransport") {
					keep = append(keep, st)
				}
			}
			if len(keep) == len(doc["Statement"].([]any)) {
				t.Fatal("the response queue's policy has no TLS-only deny")
			}
			doc["Statement"] = keep
		}, cellKey{"account-service", "sqs:ReceiveMessage(plain-http)", "response-queue"}},
		{"the ledger anchor's write lock removed and another account let write heads", func(t *testing.T, tpls map[string]template) {
			// Whoever writes the anchor can plant heads: only the sweeper may.
			doc := policyDoc(t, tpls["ErasureLedger"], "AWS::S3::BucketPolicy", "OnlyTheSweeperAnchors")
			removeStatement(t, doc, "OnlyTheSweeperAnchors")
			addStatement(t, doc, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::222222222222:root"},
				"Action": "s3:PutObject", "Resource": "*"})
		}, cellKey{"other/222222222222", "s3:PutObject", "ledger-anchor-objects"}},
		{"two more ledger anchors in the ledger's stack, the last open to another account", func(t *testing.T, tpls map[string]template) {
			// The second anchor of a stack is named by the stack; a third of
			// the same stack must be numbered, not dropped from the matrix.
			doc := policyDoc(t, tpls["ErasureLedger"], "AWS::S3::BucketPolicy", "OnlyTheSweeperAnchors")
			copyAnchor(t, tpls["ErasureLedger"], "ZSecondAnchor", doc)
			open := clone(t, doc)
			removeStatement(t, open, "OnlyTheSweeperAnchors")
			addStatement(t, open, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::222222222222:root"},
				"Action": "s3:PutObject", "Resource": "*"})
			copyAnchor(t, tpls["ErasureLedger"], "ZThirdAnchor", open)
		}, cellKey{"other/222222222222", "s3:PutObject", "ledger-anchor-objects/ErasureLedger#2"}},
		{"the bitmap bucket's lock removed and another account let read its registry rows", func(t *testing.T, tpls map[string]template) {
			// Only the rows: the segments' class alone would not see it.
			doc := policyDoc(t, tpls["BitmapStore"], "AWS::S3::BucketPolicy", "OnlyTheStoreReadsAndWrites")
			removeStatement(t, doc, "OnlyTheStoreReadsAndWrites")
			bucket, prefix := bitmapBucketOf(t, tpls["BitmapStore"])
			addStatement(t, doc, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::222222222222:root"}, "Action": "s3:GetObject",
				"Resource": map[string]any{"Fn::Join": []any{"", []any{map[string]any{"Fn::GetAtt": []any{bucket, "Arn"}}, "/" + prefix + "registry/*"}}}})
		}, cellKey{"other/222222222222", "s3:GetObject", "bucket-rows/bitmaps"}},
		{"the bitmap store's handler let delete the registry's history", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["BitmapStore"], "AWS::IAM::Policy", "")
			addStatement(t, doc, map[string]any{"Effect": "Allow", "Action": "s3:DeleteObjectVersion", "Resource": "*"})
		}, cellKey{"handler/bitmaps", "s3:DeleteObjectVersion", "bucket-rows/bitmaps"}},
		{"the subscription lock also admits the store queues of an account only the condition names", func(t *testing.T, tpls map[string]template) {
			// 333333333333 is on no roster and owns nothing of the app: only
			// the edited condition names it, and a queue of it is asked.
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SNS::TopicPolicy", "SubscribeOnlyStoreQueuesOfTheSubscribersAccount")
			widenCondition(t, doc, "SubscribeOnlyStoreQueuesOfTheSubscribersAccount", "", "arn:aws:sqs:*:333333333333:"+contract.QueueNamePrefix+"*")
		}, cellKey{"admin/222222222222", "sns:Subscribe(sqs:a-store-queue-of/333333333333)", "topic"}},
		{"the response key's lock removed and another account let use it directly, never through SQS", func(t *testing.T, tpls map[string]template) {
			// The new grant applies only to a request without
			// kms:ViaService: a cell asked through SQS never meets it.
			var doc map[string]any
			for id, r := range tpls["ErasureChannel"].resources("AWS::KMS::Key") {
				if strings.HasPrefix(id, "ErasureChannelResponseKey") {
					doc = r["Properties"].(map[string]any)["KeyPolicy"].(map[string]any)
				}
			}
			if doc == nil {
				t.Fatal("no response key")
			}
			removeStatement(t, doc, "OnlyTheDataPathUsesTheKey")
			addStatement(t, doc, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::222222222222:root"}, "Action": "kms:Decrypt",
				"Resource": "*", "Condition": map[string]any{"Null": map[string]any{"kms:ViaService": "true"}}})
		}, cellKey{"other/222222222222", "kms:Decrypt(direct)", "response-key"}},
		{"a publisher pattern with [ (a literal in IAM, not a class)", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SNS::TopicPolicy", "OnlyPublishersPublish")
			for _, s := range doc["Statement"].([]any) {
				if sm := s.(map[string]any); sm["Sid"] == "OnlyPublishersPublish" {
					sm["Condition"] = map[string]any{"ArnNotLike": map[string]any{"aws:PrincipalArn": "arn:aws:iam::111111111111:role/[a-z]*"}}
				}
			}
		}, cellKey{"account-service", "sns:Publish", "topic"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyAssembly(t, defaultDir)
			tpls := readTemplates(t, dir)
			tc.edit(t, tpls)
			writeTemplates(t, dir, tpls)
			m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := cellsByKey(m)[tc.broke]
			if !ok || c.Holds() {
				t.Fatalf("after the edit, cell %s still holds (or is gone): %+v", tc.broke, c)
			}
			if i == 0 { // the CLI as CI runs it, once
				out, err := exec.Command(erasurectlBinary(t), "access", "--failing", dir).CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "FAIL  "+tc.broke.principal) {
					t.Errorf("erasurectl access over a widened policy: want exit 1 naming the cell, got %v\n%s", err, out)
				}
			}
		})
	}
}

// TestAnUnrelatedNotPrincipalDenyDecidesNothing: a NotPrincipal Deny of an
// action off the data path leaves every cell decided.
func TestAnUnrelatedNotPrincipalDenyDecidesNothing(t *testing.T) {
	defaultApp(t)
	dir := copyAssembly(t, defaultDir)
	tpls := readTemplates(t, dir)
	doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer")
	addStatement(t, doc, map[string]any{"Effect": "Deny", "NotPrincipal": map[string]any{"AWS": "arn:aws:iam::111111111111:role/account-service"},
		"Action": "sqs:TagQueue", "Resource": "*"})
	writeTemplates(t, dir, tpls)
	m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Cells {
		if c.Got == iameval.Undecided {
			t.Errorf("cell %s %s %s is undecided: %s", c.Principal, c.Action, c.Resource, c.Because)
		}
	}
	if c := cellsByKey(m)[cellKey{"admin/111111111111", "sqs:TagQueue", "response-queue"}]; c.Got != iameval.Denied || c.Holds() {
		t.Errorf("the NotPrincipal deny does not reach an administrator's TagQueue: %+v", c)
	}
}

// The example app's policies widened or narrowed, each one way (the access
// matrix's tests and the channel rules' fixtures share them):
// openRoster lets anyone answer on the response queue (the roster's allow and
// deny both without condition);
func openRoster(t *testing.T, tpls map[string]template) {
	doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "RosterSendResponses")
	for _, s := range doc["Statement"].([]any) {
		if sm := s.(map[string]any); sm["Sid"] == "RosterSendResponses" || sm["Sid"] == "OnlyRosterHandlersAnswer" {
			delete(sm, "Condition")
			sm["Effect"] = "Allow"
		}
	}
}

// dropAnswerGrant takes the space store's handler's answer grant away;
func dropAnswerGrant(t *testing.T, tpls map[string]template) {
	doc := policyDoc(t, tpls["SpaceStore"], "AWS::IAM::Policy", "")
	var keep []any
	for _, s := range doc["Statement"].([]any) {
		if s.(map[string]any)["Action"] != "sqs:SendMessage" {
			keep = append(keep, s)
		}
	}
	doc["Statement"] = keep
}

// addUnjudgeableDeny adds a Deny with a condition the evaluator cannot judge.
func addUnjudgeableDeny(t *testing.T, tpls map[string]template) {
	doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer")
	addStatement(t, doc, map[string]any{"Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": "*",
		"Condition": map[string]any{"DateGreaterThan": map[string]any{"aws:CurrentTime": "2027-01-01T00:00:00Z"}}})
}

// policyDoc returns the policy document of the resource of type typ in tpl
// (whose statements have Sid sid, when sid is given).
func policyDoc(t *testing.T, tpl template, typ, sid string) map[string]any {
	t.Helper()
	for _, r := range tpl.resources(typ) {
		doc := r["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
		b, _ := json.Marshal(doc)
		if sid == "" || strings.Contains(string(b), `"Sid":"`+sid+`"`) {
			return doc
		}
	}
	t.Fatalf("no %s with statement %q", typ, sid)
	return nil
}

// copyAnchor adds to tpl a copy of its ledger anchor bucket named id, with
// a bucket policy of its own whose document is doc.
func copyAnchor(t *testing.T, tpl template, id string, doc map[string]any) {
	t.Helper()
	rs := tpl["Resources"].(map[string]any)
	for _, b := range tpl.resources("AWS::S3::Bucket") {
		if meta, _ := b["Metadata"].(map[string]any); meta[channelpolicy.KindMetadataKey] == string(channelpolicy.LedgerAnchor) {
			rs[id] = clone(t, b)
			rs[id+"Policy"] = map[string]any{"Type": "AWS::S3::BucketPolicy",
				"Properties": map[string]any{"Bucket": map[string]any{"Ref": id}, "PolicyDocument": clone(t, doc)}}
			return
		}
	}
	t.Fatal("no ledger anchor bucket")
}

// clone is a deep copy of a template node.
func clone(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func addStatement(t *testing.T, doc map[string]any, s map[string]any) {
	t.Helper()
	doc["Statement"] = append(doc["Statement"].([]any), s)
}

func removeStatement(t *testing.T, doc map[string]any, sid string) {
	t.Helper()
	var keep []any
	for _, s := range doc["Statement"].([]any) {
		if s.(map[string]any)["Sid"] != sid {
			keep = append(keep, s)
		}
	}
	if len(keep) == len(doc["Statement"].([]any)) {
		t.Fatalf("no statement %s", sid)
	}
	doc["Statement"] = keep
}

// copyAssembly copies a cloud assembly's manifest and templates.
func copyAssembly(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(src, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeTemplates(t *testing.T, dir string, tpls map[string]template) {
	t.Helper()
	for name, tpl := range tpls {
		b, _ := json.MarshalIndent(tpl, "", " ")
		if err := os.WriteFile(filepath.Join(dir, name+".template.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	erasurectlOnce sync.Once
	erasurectlPath string
	erasurectlErr  error
)

// erasurectlBinary builds erasurectl once per test binary.
func erasurectlBinary(t testing.TB) string {
	t.Helper()
	erasurectlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "erasurectl-bin")
		if err != nil {
			erasurectlErr = err
			return
		}
		erasurectlPath = filepath.Join(dir, "erasurectl")
		if b, err := exec.Command("go", "build", "-o", erasurectlPath, "../cmd/erasurectl").CombinedOutput(); err != nil {
			erasurectlErr = fmt.Errorf("go build erasurectl: %v\n%s", err, b)
		}
	})
	if erasurectlErr != nil {
		t.Fatal(erasurectlErr)
	}
	return erasurectlPath
}

// TestWidenedPolicyFailsTheSynth: with the access rules on (the example app
// has them; a store team's test kit takes Options.Access), a store that
// gives its queue a second queue policy (whichever deploys last replaces
// the other, locks included) fails its synth, naming the queue, and
// erasurectl check --access refuses the same; so does a channel without
// declared publishers (anyone of its account could publish an ERASE). The
// same app with its publishers and one policy per queue, environment-agnostic
// stacks included, has no access line.
func TestWidenedPolicyFailsTheSynth(t *testing.T) {
	build := func(publishers []string, widen bool) func(app awscdk.App) {
		return func(app awscdk.App) {
			channel := awscdk.NewStack(app, jsii.String("Channel"), nil)
			ch := erasure.NewErasureChannel(channel, jsii.String("ErasureChannel"), &erasure.ErasureChannelProps{
				Stores: []erasure.RosterStore{{Name: "space"}, {Name: "orders"}}, Publishers: publishers})
			for _, name := range []string{"space", "orders"} {
				stack := awscdk.NewStack(app, jsii.String("Store-"+name), nil)
				sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
					Name: name, Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()})
				if widen && name == "orders" {
					extra := awssqs.NewQueuePolicy(stack, jsii.String("ExtraPolicy"), &awssqs.QueuePolicyProps{Queues: &[]awssqs.IQueue{sub.Queue}})
					extra.Document().AddStatements(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
						Actions: jsii.Strings("sqs:SendMessage"), Resources: jsii.Strings(*sub.Queue.QueueArn()),
						Principals: &[]awsiam.IPrincipal{awsiam.NewAccountRootPrincipal()}}))
				}
			}
		}
	}
	publishers := []string{"arn:aws:iam::111111111111:role/account-service"}
	clean := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t), Access: true}, build(publishers, false))
	if lines := linesMentioning(strings.Join(clean.Lines, "\n")+"\n", "Access["); lines != "" {
		t.Errorf("the clean app has access lines:\n%s", lines)
	}
	widened := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t), Access: true}, build(publishers, true))
	report := strings.Join(widened.Lines, "\n") + "\n"
	const want = "Access[queue/orders]: Invalid"
	if !strings.Contains(report, want) {
		t.Fatalf("the app with a second queue policy: no line %q in:\n%s", want, report)
	}
	out, err := exec.Command(erasurectlBinary(t), "check", "--access", widened.Dir).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Errorf("erasurectl check --access over the widened app: want exit 1 and %q, got %v\n%s", want, err, out)
	}
	open := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t), Access: true}, build(nil, false))
	if report := strings.Join(open.Lines, "\n") + "\n"; !strings.Contains(report, "Access[topic]: BreaksErasure") {
		t.Errorf("a channel without publishers: no line %q in:\n%s", "Access[topic]: BreaksErasure", report)
	}
}

// TestHardeningDeniesThatLeaveCloudFormationItsHandlersHold: a Deny that
// takes actions off the data path away from everyone, administrators
// included, holds when CloudFormation's handlers do not call them
// (channelpolicy.HandlerPermissions: sqs:PurgeQueue on the queues,
// kms:CreateGrant on the keys, sns:AddPermission on the topic,
// s3:PutObjectLegalHold on the bitmap objects; kms:DisableKey on a key that
// stays enabled, since the key's handlers call it only for Enabled false;
// kms:ScheduleKeyDeletion on a key whose DeletionPolicy and
// UpdateReplacePolicy are Retain, since CloudFormation then never calls its
// delete handler), and fails when they do (sqs:SetQueueAttributes,
// kms:PutKeyPolicy, sns:SetTopicAttributes, s3:PutBucketAcl; kms:DisableKey
// on a key that is to be disabled; kms:ScheduleKeyDeletion on a key
// CloudFormation may delete): the administrators could no longer deploy.
func TestHardeningDeniesThatLeaveCloudFormationItsHandlersHold(t *testing.T) {
	defaultApp(t)
	type doc struct{ stack, typ, sid string }
	queues := []doc{{"ErasureChannel", "AWS::SQS::QueuePolicy", "RosterSendResponses"}, {"SpaceStore", "AWS::SQS::QueuePolicy", "OnlyTheHandlerConsumes"}}
	keys := []doc{{"ErasureChannel", "AWS::KMS::Key", "RosterEncryptResponsesViaSqs"}, {"SpaceStore", "AWS::KMS::Key", ""}}
	topic := []doc{{"ErasureChannel", "AWS::SNS::TopicPolicy", "OnlyPublishersPublish"}}
	bucket := []doc{{"BitmapStore", "AWS::S3::BucketPolicy", "OnlyTheStoreReadsAndWrites"}}
	deletableResponseKey := func(t *testing.T, tpls map[string]template) {
		for _, r := range tpls["ErasureChannel"].resources("AWS::KMS::Key") {
			if strings.Contains(mustJSON(t, r["Properties"].(map[string]any)["KeyPolicy"]), "RosterEncryptResponsesViaSqs") {
				r["DeletionPolicy"] = "Delete"
			}
		}
	}
	disableResponseKey := func(t *testing.T, tpls map[string]template) {
		for _, r := range tpls["ErasureChannel"].resources("AWS::KMS::Key") {
			props := r["Properties"].(map[string]any)
			if strings.Contains(mustJSON(t, props["KeyPolicy"]), "RosterEncryptResponsesViaSqs") {
				props["Enabled"] = false
			}
		}
	}
	for _, tc := range []struct {
		name    string
		docs    []doc
		actions []any
		mutate  func(*testing.T, map[string]template)
		holds   cellKey // a cell the Deny now decides Denied, still holding
		broke   cellKey // empty when every cell holds
	}{
		{"no purge, no redrive", queues, []any{"sqs:PurgeQueue", "sqs:StartMessageMoveTask"}, nil,
			cellKey{"admin/111111111111", "sqs:PurgeQueue", "response-queue"}, cellKey{}},
		{"no attribute changes", queues, []any{"sqs:SetQueueAttributes"}, nil,
			cellKey{}, cellKey{"admin/111111111111", "sqs:SetQueueAttributes", "response-queue"}},
		{"no grants, no disabling", keys, []any{"kms:CreateGrant", "kms:RevokeGrant", "kms:DisableKey"}, nil,
			cellKey{"admin/111111111111", "kms:DisableKey", "response-key"}, cellKey{}},
		{"no key policy changes", keys, []any{"kms:PutKeyPolicy"}, nil,
			cellKey{}, cellKey{"admin/111111111111", "kms:PutKeyPolicy", "response-key"}},
		{"no disabling a key that is to be disabled", keys, []any{"kms:DisableKey"}, disableResponseKey,
			cellKey{}, cellKey{"admin/111111111111", "kms:DisableKey", "response-key"}},
		{"no deleting retained keys", keys, []any{"kms:ScheduleKeyDeletion"}, nil,
			cellKey{"admin/111111111111", "kms:ScheduleKeyDeletion", "response-key"}, cellKey{}},
		{"no deleting a key CloudFormation may delete", keys, []any{"kms:ScheduleKeyDeletion"}, deletableResponseKey,
			cellKey{}, cellKey{"admin/111111111111", "kms:ScheduleKeyDeletion", "response-key"}},
		{"no topic permissions", topic, []any{"sns:AddPermission", "sns:RemovePermission"}, nil,
			cellKey{"admin/111111111111", "sns:AddPermission", "topic"}, cellKey{}},
		{"no topic attribute changes", topic, []any{"sns:SetTopicAttributes"}, nil,
			cellKey{}, cellKey{"admin/111111111111", "sns:SetTopicAttributes", "topic"}},
		{"no legal holds", bucket, []any{"s3:PutObjectLegalHold"}, nil,
			cellKey{"admin/111111111111", "s3:PutObjectLegalHold", "bucket-objects/bitmaps"}, cellKey{}},
		{"no bucket ACL changes", bucket, []any{"s3:PutBucketAcl"}, nil,
			cellKey{}, cellKey{"admin/111111111111", "s3:PutBucketAcl", "bucket/bitmaps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyAssembly(t, defaultDir)
			tpls := readTemplates(t, dir)
			harden := map[string]any{"Sid": "Hardening", "Effect": "Deny", "Principal": "*", "Action": tc.actions, "Resource": "*"}
			for _, d := range tc.docs {
				addStatement(t, anyPolicyDoc(t, tpls[d.stack], d.typ, d.sid), harden)
			}
			if tc.mutate != nil {
				tc.mutate(t, tpls)
			}
			writeTemplates(t, dir, tpls)
			m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
			if err != nil {
				t.Fatal(err)
			}
			cells := cellsByKey(m)
			if tc.broke == (cellKey{}) {
				for _, c := range m.Failing() {
					t.Errorf("cell does not hold: %s %s %s: want %s, got %s (%s)", c.Principal, c.Action, c.Resource, c.Want, c.Got, c.Because)
				}
				if c, ok := cells[tc.holds]; !ok || c.Got != iameval.Denied || !c.Holds() {
					t.Errorf("the hardening Deny was not read or does not hold: %s: %+v", tc.holds, c)
				}
				return
			}
			if c, ok := cells[tc.broke]; !ok || c.Holds() {
				t.Fatalf("cell %s holds (or is gone) under a Deny of a handler permission: %+v", tc.broke, c)
			}
		})
	}
}

// anyPolicyDoc is the policy document of typ in tpl (a key's KeyPolicy)
// that holds statement sid ("" for the first).
func anyPolicyDoc(t *testing.T, tpl template, typ, sid string) map[string]any {
	t.Helper()
	if typ != "AWS::KMS::Key" {
		return policyDoc(t, tpl, typ, sid)
	}
	for _, id := range sortedKeys(tpl.resources(typ)) {
		doc := tpl.resources(typ)[id]["Properties"].(map[string]any)["KeyPolicy"].(map[string]any)
		if sid == "" || strings.Contains(mustJSON(t, doc), `"Sid":"`+sid+`"`) {
			return doc
		}
	}
	t.Fatalf("no key policy with statement %q", sid)
	return nil
}

// bitmapBucketOf is the logical id of the bitmap store's bucket in tpl and
// the prefix its handler is given.
func bitmapBucketOf(t *testing.T, tpl template) (id, prefix string) {
	t.Helper()
	for rid, r := range tpl.resources("AWS::Lambda::Function") {
		_ = rid
		env, _ := r["Properties"].(map[string]any)["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if b, ok := vars[contract.EnvBitmapBucket].(map[string]any); ok {
			ref, _ := b["Ref"].(string)
			p, _ := vars[contract.EnvBitmapPrefix].(string)
			return ref, p
		}
	}
	t.Fatal("no function names the bitmap bucket")
	return "", ""
}

// widenCondition appends value to the condition key (every key when key is
// "") of statement sid in doc: one more principal or endpoint admitted.
func widenCondition(t *testing.T, doc map[string]any, sid, key, value string) {
	t.Helper()
	for _, st := range doc["Statement"].([]any) {
		sm := st.(map[string]any)
		if sm["Sid"] != sid {
			continue
		}
		for _, block := range sm["Condition"].(map[string]any) {
			for k, v := range block.(map[string]any) {
				if key == "" || strings.EqualFold(k, key) {
					block.(map[string]any)[k] = append(iameval.ListOf(v), value)
				}
			}
		}
		return
	}
	t.Fatalf("no statement %s", sid)
}

// TestOrganisationPoliciesAreJudged: erasurectl access with a service
// control policy over the store account: one that allows everything leaves
// every cell holding; one that denies sending to SQS there (the ledger
// store's handler can no longer answer) fails the handler's answer cell,
// exit 1; a resource control policy over the channel's account that keeps
// other accounts out of its SQS does too. With organisational units
// (--ou): a Deny at the root or at the store account's unit reaches it, one
// at another unit does not; two policies attached to one unit allow
// together, while the same two at two levels must each allow; unit
// policies with an account of the app left unplaced are refused (exit 2).
func TestOrganisationPoliciesAreJudged(t *testing.T) {
	defaultApp(t)
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := write("all.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	noSend := write("no-send.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"*"}]}`)
	outsiders := write("outsiders.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"},`+
		`{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringNotEquals":{"aws:PrincipalAccount":"111111111111"}}}]}`)
	someActions := write("some.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sqs:*","kms:*"],"Resource":"*"}]}`)
	theOthers := write("others.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":["sqs:*","kms:*"],"Resource":"*"}]}`)
	const root, unit, other = "r-ab12", "ou-ab12-11111111", "ou-ab12-22222222"
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		names string
	}{
		{"an SCP that allows everything", []string{"--scp", "222222222222=" + all}, 0, ""},
		{"an SCP that denies sending", []string{"--scp", "222222222222=" + noSend}, 1, "FAIL  handler/ledger"},
		{"an RCP that keeps other accounts out", []string{"--rcp", "111111111111=" + outsiders}, 1, "FAIL  handler/ledger"},
		{"not ACCOUNT=FILE", []string{"--scp", all}, 2, ""},
		// Organisational units: the levels of an account's path.
		{"a root SCP that denies sending", []string{"--scp", root + "=" + noSend, "--ou", "111111111111=" + root, "--ou", "222222222222=" + root + "/" + unit}, 1, "FAIL  handler/ledger"},
		{"a unit SCP that denies sending, over the store account only", []string{"--scp", unit + "=" + noSend,
			"--ou", "111111111111=" + root, "--ou", "222222222222=" + root + "/" + unit}, 1, "FAIL  handler/ledger"},
		{"a unit SCP that denies sending, over another unit", []string{"--scp", unit + "=" + noSend,
			"--ou", "111111111111=" + root, "--ou", "222222222222=" + root + "/" + other}, 0, ""},
		{"two policies of one unit allow together", []string{"--scp", unit + "=" + someActions, "--scp", unit + "=" + theOthers,
			"--ou", "111111111111=" + root + "/" + unit, "--ou", "222222222222=" + root + "/" + unit}, 0, ""},
		{"policies of two levels must each allow", []string{"--scp", root + "=" + someActions, "--scp", unit + "=" + theOthers,
			"--ou", "111111111111=" + root + "/" + unit, "--ou", "222222222222=" + root + "/" + unit}, 1, "FAIL"},
		{"a unit policy and an account with no place", []string{"--scp", unit + "=" + noSend, "--ou", "222222222222=" + root + "/" + unit}, 2,
			"account 111111111111 has no place in the organisation"},
		{"a path that does not start at a root", []string{"--scp", unit + "=" + noSend, "--ou", "222222222222=" + unit}, 2, "--ou"},
		{"not a target", []string{"--scp", "ou-nope=" + all}, 2, "TARGET=FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(erasurectlBinary(t), append(append([]string{"access", "--failing"}, tc.args...), defaultDir)...).CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.names) {
				t.Errorf("exit %d, want %d naming %q:\n%s", code, tc.code, tc.names, tail(out))
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
