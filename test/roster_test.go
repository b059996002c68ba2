package test

import (
	"encoding/json"
	"fmt"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract"
)

// TestResponseQueueAdmitsOnlyTheRoster: the example app's response queue
// lets only the handler path (contract.HandlerRolePath) of the roster's
// accounts send (aws:PrincipalArn, so the roles need not exist yet), names
// the store accounts once as bare ids, names no store, denies
// sqs:SendMessage to every principal off the path in any account, and no
// longer lets a store account's every principal answer. The handlers carry
// the names and the path the roster admits.
func TestResponseQueueAdmitsOnlyTheRoster(t *testing.T) {
	app := defaultApp(t)
	handlers := ":iam::*:role/erasure-channel/erasure-handler-*"
	var deny, allow map[string]interface{}
	for _, pol := range app["ErasureChannel"].resources("AWS::SQS::QueuePolicy") {
		doc := pol["Properties"].(map[string]interface{})["PolicyDocument"].(map[string]interface{})
		for _, st := range doc["Statement"].([]interface{}) {
			stm := st.(map[string]interface{})
			switch stm["Sid"] {
			case "OnlyRosterHandlersAnswer":
				deny = stm
			case "RosterSendResponses":
				allow = stm
			case "StoreAccountsSendResponses":
				t.Errorf("a store account's every principal may still answer: %v", stm)
			}
		}
		b, _ := json.Marshal(doc)
		for _, store := range []string{"space", "ledger", "bitmaps"} {
			if strings.Contains(string(b), "erasure-handler-"+store) {
				t.Errorf("a shared policy names store %s: it would grow with every store", store)
			}
		}
	}
	if deny == nil || allow == nil {
		t.Fatalf("the response queue policy has no roster statements (deny %v, allow %v)", deny, allow)
	}
	b, _ := json.Marshal(deny)
	if deny["Effect"] != "Deny" || deny["Action"] != "sqs:SendMessage" || !strings.Contains(string(b), `"Principal":{"AWS":"*"}`) ||
		!strings.Contains(string(b), "ArnNotLike") || !strings.Contains(string(b), handlers) {
		t.Errorf("the deny is not on every sender off the handler path: %s", b)
	}
	a, _ := json.Marshal(allow)
	if !strings.Contains(string(a), `"ArnLike":{"aws:PrincipalArn"`) || !strings.Contains(string(a), handlers) ||
		!strings.Contains(string(a), `"StringEquals":{"aws:PrincipalAccount":["222222222222"]}`) {
		t.Errorf("the allow is not the handler path of the store accounts: %s", a)
	}
	for stack, name := range map[string]string{"SpaceStore": "erasure-handler-space", "LedgerStore": "erasure-handler-ledger", "BitmapStore": "erasure-handler-bitmaps"} {
		_, role := app[stack].handlerRole(t)
		_, fn := app[stack].one(t, "AWS::Lambda::Function")
		if role["RoleName"] != name || role["Path"] != contract.HandlerRolePath || fn["FunctionName"] != name {
			t.Errorf("%s: the handler is not %s under %s: role %v %v, function %v", stack, name, contract.HandlerRolePath, role["Path"], role["RoleName"], fn["FunctionName"])
		}
	}
}

// TestStoreOffTheRosterIsRefused: a store whose handler the roster does not
// name is refused at synth, as CDK reports it; a roster with a bad entry, or
// given together with StoreAccounts, is refused by the channel itself.
func TestStoreOffTheRosterIsRefused(t *testing.T) {
	res := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t)}, func(app awscdk.App) {
		channel := awscdk.NewStack(app, jsii.String("Channel"), nil)
		ch := erasure.NewErasureChannel(channel, jsii.String("ErasureChannel"), &erasure.ErasureChannelProps{Stores: []erasure.RosterStore{{Name: "space"}}})
		for _, name := range []string{"space", "intruder"} {
			stack := awscdk.NewStack(app, jsii.String("Store-"+name), nil)
			erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
				Name: name, Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()})
		}
	})
	report := strings.Join(res.Lines, "\n") + "\n"
	if got := linesMentioning(report, "ErasureSubscriber[intruder]"); !strings.Contains(got, "ErasureSubscriber[intruder].roster: Missing") || strings.Count(got, "\n") != 1 {
		t.Errorf("the store off the roster: want exactly its roster line, got:\n%s", report)
	}
	if strings.Contains(report, "ErasureSubscriber[space]") {
		t.Errorf("the store on the roster was refused:\n%s", linesMentioning(report, "ErasureSubscriber[space]"))
	}

	res = erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t)}, func(app awscdk.App) {
		bad := awscdk.NewStack(app, jsii.String("BadRoster"), nil)
		erasure.NewErasureChannel(bad, jsii.String("Dup"), &erasure.ErasureChannelProps{
			Stores: []erasure.RosterStore{{Name: "a"}, {Name: "a"}, {Name: "b", Account: "12"}}})
		erasure.NewErasureChannel(bad, jsii.String("Both"), &erasure.ErasureChannelProps{
			Stores: []erasure.RosterStore{{Name: "a"}}, StoreAccounts: []string{"222222222222"}})
		erasure.NewErasureChannel(bad, jsii.String("BadOrg"), &erasure.ErasureChannelProps{
			Stores: []erasure.RosterStore{{Name: "a"}}, OrganizationID: "o-NOT-AN-ID"})
		erasure.NewErasureChannel(bad, jsii.String("OrgWithoutRoster"), &erasure.ErasureChannelProps{
			StoreAccounts: []string{"222222222222"}, OrganizationID: "o-exampleorg01"})
	})
	report = strings.Join(res.Lines, "\n") + "\n"
	for _, want := range []string{"EC026 ErasureChannel.stores[1].name: Invalid", "EC026 ErasureChannel.stores[2].account: Invalid", "EC026 ErasureChannel.storeAccounts: Invalid",
		"BadOrg] EC027 ErasureChannel.organizationId: Invalid", "OrgWithoutRoster] EC027 ErasureChannel.organizationId: Invalid"} {
		if !strings.Contains(report, want) {
			t.Errorf("no line %q in:\n%s", want, report)
		}
	}
}

// TestOnlyTheHandlerConsumesAStoreQueue: every example store's queue denies
// receiving, deleting and hiding its requests to every principal but its
// handler's role, and leaves sending (SNS, pass two) alone.
func TestOnlyTheHandlerConsumesAStoreQueue(t *testing.T) {
	app := defaultApp(t)
	for _, stack := range []string{"SpaceStore", "LedgerStore", "BitmapStore"} {
		roleID, _ := app[stack].handlerRole(t)
		var deny map[string]interface{}
		for _, pol := range app[stack].resources("AWS::SQS::QueuePolicy") {
			doc := pol["Properties"].(map[string]interface{})["PolicyDocument"].(map[string]interface{})
			for _, st := range doc["Statement"].([]interface{}) {
				if stm := st.(map[string]interface{}); stm["Sid"] == "OnlyTheHandlerConsumes" {
					deny = stm
				}
			}
		}
		b, _ := json.Marshal(deny)
		want := `{"Action":["sqs:ChangeMessageVisibility","sqs:DeleteMessage","sqs:ReceiveMessage"],"Condition":{"ArnNotEquals":{"aws:PrincipalArn":{"Fn::GetAtt":["` + roleID + `","Arn"]}}},"Effect":"Deny","Principal":{"AWS":"*"},"Resource":{"Fn::GetAtt":["ErasureSubscriberQueue3CE73904","Arn"]},"Sid":"OnlyTheHandlerConsumes"}`
		if string(b) != want {
			t.Errorf("%s: the consumer deny is\n%s\nwant\n%s", stack, b, want)
		}
	}
}

// TestRefusedAnswersAlarmAndRosterMetadata: the channel alarms on the first
// refused answer (the reader's ErasureAnswersRefused metric), the dashboard
// shows the alarm, and the response queue names the roster for erasurectl watch.
func TestRefusedAnswersAlarmAndRosterMetadata(t *testing.T) {
	app := defaultApp(t)
	found := false
	for _, a := range app["ErasureChannel"].resources("AWS::CloudWatch::Alarm") {
		p := a["Properties"].(map[string]interface{})
		if p["MetricName"] != "ErasureAnswersRefused" {
			continue
		}
		found = true
		dims, _ := json.Marshal(p["Dimensions"])
		if p["Namespace"] != "ErasureChannel" || p["Threshold"] != 1.0 || p["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" ||
			p["Statistic"] != "Sum" || p["TreatMissingData"] != "notBreaching" || string(dims) != `[{"Name":"Code","Value":"SENDER_NOT_ON_ROSTER"}]` {
			t.Errorf("the refused-answers alarm: %v", p)
		}
	}
	if !found {
		t.Fatal("no alarm on ErasureAnswersRefused")
	}
	conflicts := false
	for _, a := range app["ErasureChannel"].resources("AWS::CloudWatch::Alarm") {
		p := a["Properties"].(map[string]interface{})
		dims, _ := json.Marshal(p["Dimensions"])
		if p["MetricName"] == "ErasureAnswersConflicting" {
			conflicts = p["Threshold"] == 1.0 && p["ComparisonOperator"] == "GreaterThanOrEqualToThreshold" && p["Statistic"] == "Sum" &&
				string(dims) == `[{"Name":"Code","Value":"CONFLICTING_ANSWER"}]`
		}
	}
	if !conflicts {
		t.Error("no alarm on ErasureAnswersConflicting (Code CONFLICTING_ANSWER, >= 1)")
	}
	_, dash := app["ErasureOperations"].one(t, "AWS::CloudWatch::Dashboard")
	body, _ := json.Marshal(dash["DashboardBody"])
	if !strings.Contains(string(body), "Answers refused") || !strings.Contains(string(body), "RefusedAnswersAlarm") || !strings.Contains(string(body), "ConflictingAnswersAlarm") {
		t.Errorf("the dashboard does not show the refused-answers alarm: %s", body)
	}
	// The template keeps the roster's size alone; the names are in the cloud
	// assembly (the stack's metadata file), where erasurectl watch and the
	// check read them.
	var size any
	for _, r := range app["ErasureChannel"].resources("AWS::SQS::Queue") {
		if m, ok := r["Metadata"].(map[string]interface{}); ok && m["erasure:rosterSize"] != nil {
			size = m["erasure:rosterSize"]
			if m["erasure:roster"] != nil {
				t.Errorf("the roster's names are in the template: %v", m["erasure:roster"])
			}
		}
	}
	if size != 3.0 {
		t.Errorf("the response queue's roster size is %v, want 3", size)
	}
	names, err := erasurecheck.Roster([]string{defaultDir})
	if err != nil || fmt.Sprint(names) != "[bitmaps ledger space]" {
		t.Errorf("the assembly's roster is %v (%v), want [bitmaps ledger space]", names, err)
	}
}

// TestLedgerAlarms: the channel alarms on what the account service's ledger
// emits (refusals of authenticated answers under every ledger code, exhausted
// re-broadcasts, erasures near their deadline), and the dashboard shows them.
func TestLedgerAlarms(t *testing.T) {
	app := defaultApp(t)
	byMetricCode := map[string]map[string]interface{}{} // metric/code
	var refusals map[string]interface{}
	for _, a := range app["ErasureChannel"].resources("AWS::CloudWatch::Alarm") {
		p := a["Properties"].(map[string]interface{})
		if name, ok := p["MetricName"].(string); ok {
			for _, d := range p["Dimensions"].([]interface{}) {
				byMetricCode[name+"/"+fmt.Sprint(d.(map[string]interface{})["Value"])] = p
			}
		}
		if m, ok := p["Metrics"]; ok {
			if b, _ := json.Marshal(m); strings.Contains(string(b), contract.CodeUnknownRound) {
				refusals = p
			}
		}
	}
	for _, mc := range [][2]string{{contract.MetricRebroadcastsExhausted, contract.CodeExhausted}, {contract.MetricRequestsOverdue, contract.CodeOverdue},
		{contract.MetricReceiptLogRefused, contract.CodeLogForged}, {contract.MetricReceiptLogRefused, contract.CodeLogRolledBack}} {
		metric, code := mc[0], mc[1]
		p := byMetricCode[metric+"/"+code]
		dims, _ := json.Marshal(p["Dimensions"])
		if p == nil || p["Threshold"] != 1.0 || string(dims) != `[{"Name":"Code","Value":"`+code+`"}]` {
			t.Errorf("no alarm on %s (Code %s, >= 1): %v", metric, code, p)
		}
	}
	if refusals == nil {
		t.Fatal("no alarm on the ledger's refusals")
	}
	b, _ := json.Marshal(refusals["Metrics"])
	for _, code := range contract.LedgerRefusalCodes {
		if !strings.Contains(string(b), `"Value":"`+code+`"`) {
			t.Errorf("the ledger-refusal alarm does not sum code %s", code)
		}
	}
	// The table's TTL: a receipted request's rounds and answers expire.
	_, table := app["ErasureLedger"].one(t, "AWS::DynamoDB::Table")
	if ttl, _ := json.Marshal(table["TimeToLiveSpecification"]); string(ttl) != `{"AttributeName":"`+contract.LedgerExpireAttribute+`","Enabled":true}` {
		t.Errorf("the ledger's table TTL is %s", ttl)
	}
	// One sweeper at a time on AWS.
	sweepers := 0
	for _, f := range app["ErasureLedger"].resources("AWS::Lambda::Function") {
		p := f["Properties"].(map[string]interface{})
		if env, _ := json.Marshal(p["Environment"]); strings.Contains(string(env), `"sweeper"`) {
			sweepers++
			if p["ReservedConcurrentExecutions"] != 1.0 {
				t.Errorf("the sweeper's reserved concurrency is %v, want 1", p["ReservedConcurrentExecutions"])
			}
		}
	}
	if sweepers != 1 {
		t.Errorf("%d sweeper functions, want 1", sweepers)
	}
	// The receipt log's anchor: Object Lock in compliance mode for
	// ledgerAnchorRetentionDays, versioned, and named to the sweeper; the
	// sweeper may write and read heads there and delete nothing.
	anchorID, anchor := "", map[string]interface{}{}
	for id, b := range app["ErasureLedger"].resources("AWS::S3::Bucket") {
		if b["Metadata"].(map[string]interface{})[channelpolicy.KindMetadataKey] == string(channelpolicy.LedgerAnchor) {
			anchorID, anchor = id, b["Properties"].(map[string]interface{})
		}
	}
	lock, _ := json.Marshal(anchor["ObjectLockConfiguration"])
	want := fmt.Sprintf(`{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Days":%d,"Mode":"COMPLIANCE"}}}`, contract.Channel().LedgerAnchorRetentionDays)
	if anchorID == "" || anchor["ObjectLockEnabled"] != true || string(lock) != want || fmt.Sprint(anchor["VersioningConfiguration"]) != "map[Status:Enabled]" {
		t.Errorf("the ledger's anchor is not locked in compliance mode for ledgerAnchorRetentionDays: %s %v", lock, anchor)
	}
	for _, f := range app["ErasureLedger"].resources("AWS::Lambda::Function") {
		env, _ := json.Marshal(f["Properties"].(map[string]interface{})["Environment"])
		if strings.Contains(string(env), `"sweeper"`) && !strings.Contains(string(env), `"`+contract.EnvLedgerAnchorBucket+`":{"Ref":"`+anchorID+`"}`) {
			t.Errorf("the sweeper is not given the anchor: %s", env)
		}
	}
	for id, p := range app["ErasureLedger"].resources("AWS::IAM::Policy") {
		doc, _ := json.Marshal(p["Properties"].(map[string]interface{})["PolicyDocument"])
		if strings.Contains(string(doc), anchorID) && strings.Contains(string(doc), "s3:Delete") {
			t.Errorf("%s lets a ledger role delete from the anchor", id)
		}
	}
	_, dash := app["ErasureOperations"].one(t, "AWS::CloudWatch::Dashboard")
	body, _ := json.Marshal(dash["DashboardBody"])
	for _, id := range []string{"LedgerRefusedAnswersAlarm", "ExhaustedRebroadcastsAlarm", "OverdueRequestsAlarm"} {
		if !strings.Contains(string(body), id) {
			t.Errorf("the dashboard does not show %s", id)
		}
	}
}
