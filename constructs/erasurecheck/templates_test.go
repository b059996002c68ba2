package erasurecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedrivePolicyAsAJSONString: CloudFormation takes RedrivePolicy as an
// object or as a JSON string; the clean store with either form (the string
// built with !Sub) has no problem, and a string without a dead-letter queue,
// past the receive cap or not JSON is refused as the object form is.
func TestRedrivePolicyAsAJSONString(t *testing.T) {
	clean := cleanStore(t)
	const object = "      RedrivePolicy:\n        deadLetterTargetArn: !GetAtt DeadLetters.Arn\n        maxReceiveCount: 5\n"
	if !strings.Contains(clean, object) {
		t.Fatal("the fixture's RedrivePolicy changed")
	}
	for name, c := range map[string]struct {
		redrive string
		want    string // a problem the check must report, "" for none
	}{
		"built with !Sub":       {`      RedrivePolicy: !Sub '{"deadLetterTargetArn":"${DeadLetters.Arn}","maxReceiveCount":5}'` + "\n", ""},
		"without a target":      {`      RedrivePolicy: '{"maxReceiveCount":5}'` + "\n", ".deadLetterQueue: Missing"},
		"past the receive cap":  {`      RedrivePolicy: !Sub '{"deadLetterTargetArn":"${DeadLetters.Arn}","maxReceiveCount":9}'` + "\n", ".maxReceiveCount: AboveCap"},
		"not JSON at all":       {`      RedrivePolicy: 'deadLetterTargetArn=x'` + "\n", ".deadLetterQueue: Missing"},
		"the object, as before": {object, ""},
	} {
		t.Run(name, func(t *testing.T) {
			assertFindings(t, strings.Replace(clean, object, c.redrive, 1), "", c.want)
		})
	}
}

// TestResponseQueueByGrantNotVariable: a handler without
// ERASURE_RESPONSE_QUEUE_URL is not refused for the variable (the seed names
// none for the response queue); where the channel's response queue is in the
// app, its role must still be allowed to answer there.
func TestResponseQueueByGrantNotVariable(t *testing.T) {
	clean := cleanStore(t)
	const envLine = "          ERASURE_RESPONSE_QUEUE_URL: !Sub \"https://sqs.eu-west-1.${AWS::URLSuffix}/111111111111/erasure-responses\"\n"
	if !strings.Contains(clean, envLine) {
		t.Fatal("the fixture's environment changed")
	}
	noVar := strings.Replace(clean, envLine, "", 1)
	// The channel's response queue in the same template, as ErasureChannel marks it.
	const channelQueue = "  Responses:\n    Type: AWS::SQS::Queue\n    Metadata:\n      erasure:kind: response-queue\n    Properties:\n      QueueName: erasure-responses\n"
	for name, c := range map[string]struct {
		body string
		want string
	}{
		"no variable, the channel elsewhere": {noVar, ""},
		"no variable, the channel here, no grant on it": {strings.Replace(strings.Replace(noVar, "Resources:\n", "Resources:\n"+channelQueue, 1),
			"Resource: arn:aws:sqs:eu-west-1:111111111111:erasure-responses", "Resource: arn:aws:sqs:eu-west-1:111111111111:another-queue", 1), ".responseQueue: Missing"},
		"no variable, the channel here, granted by name": {strings.Replace(strings.Replace(noVar, "Resources:\n", "Resources:\n"+channelQueue, 1), "Resource: arn:aws:sqs:eu-west-1:111111111111:erasure-responses", "Resource: !GetAtt Responses.Arn", 1), ""},
	} {
		t.Run(name, func(t *testing.T) {
			assertFindings(t, c.body, "responseQueue", c.want)
		})
	}
}

// TestEventSourceOnAnAliasOrVersion: an event source on a Lambda alias or
// version (the idiom for provisioned concurrency and safe deploys) is judged
// as on its function: the clean store stays clean, and the function's
// timeout still counts.
func TestEventSourceOnAnAliasOrVersion(t *testing.T) {
	clean := cleanStore(t)
	const mapping = "      FunctionName: !Ref Handler\n      EventSourceArn: !GetAtt Requests.Arn\n"
	if !strings.Contains(clean, mapping) {
		t.Fatal("the fixture's event source changed")
	}
	const versionAndAlias = "  Version:\n    Type: AWS::Lambda::Version\n    Properties:\n      FunctionName: !Ref Handler\n" +
		"  Live:\n    Type: AWS::Lambda::Alias\n    Properties:\n      Name: live\n      FunctionName: !Ref Handler\n      FunctionVersion: !GetAtt Version.Version\n"
	for name, c := range map[string]struct{ target, want string }{
		"an alias":               {"Live", ""},
		"a version":              {"Version", ""},
		"an alias, slow handler": {"Live", ".visibilityTimeout: NotDerived"},
		"by its name":            {"store-handler", ""},
		"by its ARN and alias":   {"arn:aws:lambda:eu-west-1:111111111111:function:store-handler:live", ""},
		"by its name, slow":      {"store-handler", ".visibilityTimeout: NotDerived"},
		"another app's function": {"other-handler", ".eventSource: UnresolvedToken"},
	} {
		t.Run(name, func(t *testing.T) {
			ref := "!Ref " + c.target
			if strings.Contains(c.target, "-") {
				ref = c.target // a name or an ARN, as Lambda takes it
			}
			body := strings.Replace(clean, mapping, "      FunctionName: "+ref+"\n      EventSourceArn: !GetAtt Requests.Arn\n", 1)
			body = strings.Replace(body, "      Handler: index.handler\n", "      Handler: index.handler\n      FunctionName: store-handler\n", 1)
			body = strings.Replace(body, "Resources:\n", "Resources:\n"+versionAndAlias, 1)
			if c.want != "" {
				body = strings.Replace(body, "      Timeout: 60\n", "      Timeout: 59\n", 1)
			}
			assertFindings(t, body, "", c.want)
		})
	}
}

// assertFindings checks a plain template (body) with the erasure topic's
// ARN: with want "", no finding whose path contains about; otherwise one
// such finding containing want.
func assertFindings(t *testing.T, body, about, want string) {
	t.Helper()
	assertFindingsWith(t, body, nil, about, want)
}

// TestReservedConcurrencyBelowWhatAnSQSEventSourceNeeds: AWS advises at
// least 5 reserved executions for a function an SQS event source invokes; 0
// never runs; none reserved is fine.
func TestReservedConcurrencyBelowWhatAnSQSEventSourceNeeds(t *testing.T) {
	clean := cleanStore(t)
	const timeout = "      Timeout: 60\n"
	for reserved, want := range map[string]string{
		"":  "",
		"5": "",
		"2": ".reservedConcurrency: BelowMinimum",
		"0": ".reservedConcurrency: BreaksErasure",
	} {
		body := clean
		if reserved != "" {
			body = strings.Replace(body, timeout, timeout+"      ReservedConcurrentExecutions: "+reserved+"\n", 1)
		}
		t.Run("reserved "+reserved, func(t *testing.T) { assertFindings(t, body, "", want) })
	}
}

// TestRequestPathRules: what AWS will do to a request on its way through a
// plain store, each variant of the clean fixture refused with its line (or,
// for the correct variants, clean): the queue's delay counts in the worst
// case, every reader of the queue is judged on its own settings, event
// filtering and stream-only settings are refused, a value the handler's own
// parser rejects is refused with its words, pass two must go to the queue the
// event source reads and answers to the channel's response queue, and a
// subscription's Region must be the topic's.
func TestRequestPathRules(t *testing.T) {
	body := cleanStore(t)
	must := func(old string) {
		mustContain(t, body, old)
	}
	const (
		retention  = "      MessageRetentionPeriod: 86400\n      VisibilityTimeout: 360\n"
		mappingEnd = "      BatchSize: 1\n      FunctionResponseTypes: [ReportBatchItemFailures]\n"
		envVars    = "          ERASURE_SUBSCRIBER: plain\n"
		queueURL   = "          ERASURE_QUEUE_URL: !Ref Requests\n"
		responses  = "          ERASURE_RESPONSE_QUEUE_URL: !Sub \"https://sqs.eu-west-1.${AWS::URLSuffix}/111111111111/erasure-responses\"\n"
		subscribed = "      RawMessageDelivery: true\n"
	)
	for _, s := range []string{retention, mappingEnd, envVars, queueURL, responses, subscribed} {
		must(s)
	}
	// A second function reading the same queue, its settings given by the case.
	second := func(timeout, env, batch string) string {
		return "  Second:\n    Type: AWS::Lambda::Function\n    Properties:\n      Runtime: nodejs22.x\n      Handler: index.handler\n" +
			"      Role: !GetAtt HandlerRole.Arn\n      Timeout: " + timeout + "\n      Code:\n        ZipFile: \"x\"\n" +
			"      Environment:\n        Variables:\n          ERASURE_SUBSCRIBER: plain\n" + env +
			"  SecondMapping:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n      FunctionName: !Ref Second\n" +
			"      EventSourceArn: !GetAtt Requests.Arn\n      BatchSize: " + batch + "\n      FunctionResponseTypes: [ReportBatchItemFailures]\n"
	}
	add := func(resources string) string {
		return strings.Replace(body, "Resources:\n", "Resources:\n"+resources, 1)
	}
	for name, c := range map[string]struct {
		body, about, want string
	}{
		"clean":                                 {body, "", ""},
		"a queue delay past R":                  {strings.Replace(body, retention, retention+"      DelaySeconds: 60\n", 1), "queueDelay", ".queueDelay: BreaksTiming"},
		"a queue delay past SQS's limit":        {strings.Replace(body, retention, retention+"      DelaySeconds: 901\n", 1), "queueDelay", ".queueDelay: AboveCap"},
		"a second reader, as the first":         {add(second("60", "", "1")), "reader[", ""},
		"a second reader, slower":               {add(second("61", "", "1")), "reader[Second]", ".handlerTimeout: AboveCap"},
		"a second reader, its pass two late":    {add(second("60", "          ERASURE_PASS_TWO_DELAY_SECONDS: \"301\"\n", "1")), "reader[Second]", ".passTwoDelay: AboveCap"},
		"a second reader, batches too large":    {add(second("60", "", "11")), "reader[Second]", ".batchSize: AboveCap"},
		"event filtering":                       {strings.Replace(body, mappingEnd, mappingEnd+"      FilterCriteria:\n        Filters:\n          - Pattern: '{\"body\":{\"type\":[\"erasure/ERASE\"]}}'\n", 1), "filterCriteria", ".filterCriteria: BreaksErasure"},
		"a stream-only setting":                 {strings.Replace(body, mappingEnd, mappingEnd+"      StartingPosition: LATEST\n", 1), "startingPosition", ".startingPosition: Invalid"},
		"a pass-two delay the handler rejects":  {strings.Replace(body, envVars, envVars+"          ERASURE_PASS_TWO_DELAY_SECONDS: 600s\n", 1), "environment.ERASURE_PASS_TWO_DELAY_SECONDS", ": Invalid"},
		"a subscriber name the handler rejects": {strings.Replace(body, envVars, "          ERASURE_SUBSCRIBER: Plain_Store\n", 1), "environment.ERASURE_SUBSCRIBER", ": Invalid"},
		"pass two to the dead-letter queue":     {strings.Replace(body, queueURL, "          ERASURE_QUEUE_URL: !Ref DeadLetters\n", 1), "environment.ERASURE_QUEUE_URL", ": BreaksErasure"},
		"answers to the store's own queue":      {strings.Replace(body, responses, "          ERASURE_RESPONSE_QUEUE_URL: !Ref Requests\n", 1), "environment.ERASURE_RESPONSE_QUEUE_URL", ": BreaksErasure"},
		"a subscription in another region":      {strings.Replace(body, subscribed, subscribed+"      Region: us-east-1\n", 1), "subscription.region", ": Invalid"},
		"a subscription in the topic's region":  {strings.Replace(body, subscribed, subscribed+"      Region: eu-west-1\n", 1), "subscription.region", ""},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, c.about, c.want) })
	}
}

// TestParametersAndConditions: values as CloudFormation resolves them with no
// value passed at deploy (each parameter's Default) or with the ones given
// (Config.Parameters, erasurectl check --parameter); conditions and Fn::If
// evaluated over them; a resource under a false condition is not created.
func TestParametersAndConditions(t *testing.T) {
	body := cleanStore(t)
	const (
		params   = "Parameters:\n"
		envVars  = "          ERASURE_SUBSCRIBER: plain\n"
		topic    = "      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n      Protocol: sqs\n"
		mapping  = "  Mapping:\n    Type: AWS::Lambda::EventSourceMapping\n"
		mapEnd   = "      FunctionResponseTypes: [ReportBatchItemFailures]\n"
		envParam = "  Env:\n    Type: String\n    Default: dev\n"
		isProd   = "Conditions:\n  IsProd: !Equals [!Ref Env, prod]\n  NotProd: !Not [!Condition IsProd]\n"
	)
	mustContain(t, body, params, envVars, topic, mapping, mapEnd)
	withEnv := strings.Replace(body, params, params+envParam, 1)
	withEnv = strings.Replace(withEnv, "Resources:\n", isProd+"Resources:\n", 1)
	delayParam := strings.Replace(body, params, params+"  PassTwoDelay:\n    Type: Number\n    Default: 400\n", 1)
	delayParam = strings.Replace(delayParam, envVars, envVars+"          ERASURE_PASS_TWO_DELAY_SECONDS: !Ref PassTwoDelay\n", 1)
	for name, c := range map[string]struct {
		body   string
		params map[string]string
		about  string
		want   string
	}{
		"the topic by a parameter's default":     {strings.Replace(body, topic, "      TopicArn: !Ref ErasureTopicArn\n      Protocol: sqs\n", 1), nil, "", ""},
		"a pass-two delay from a default":        {delayParam, nil, "passTwoDelay", ".passTwoDelay: AboveCap"},
		"the same, the value given":              {delayParam, map[string]string{"PassTwoDelay": "200"}, "passTwoDelay", ""},
		"disabled under the default's condition": {strings.Replace(withEnv, mapEnd, mapEnd+"      Enabled: !If [IsProd, true, false]\n", 1), nil, "eventSource", ".eventSource: BreaksErasure"},
		"enabled with the value given":           {strings.Replace(withEnv, mapEnd, mapEnd+"      Enabled: !If [IsProd, true, false]\n", 1), map[string]string{"Env": "prod"}, "eventSource", ""},
		"the event source not created":           {strings.Replace(withEnv, mapping, mapping+"    Condition: IsProd\n", 1), nil, "handler", ".handler: Missing"},
		"the event source created":               {strings.Replace(withEnv, mapping, mapping+"    Condition: NotProd\n", 1), nil, "handler", ""},
		"a visibility from an SSM parameter": {strings.Replace(strings.Replace(body, params, params+"  Visibility:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /store/visibility\n", 1),
			"      VisibilityTimeout: 360\n", "      VisibilityTimeout: !Ref Visibility\n", 1), nil, "visibilityTimeout", ".visibilityTimeout: UnresolvedToken"},
		"disabled in one deploy an SSM value picks": {strings.Replace(strings.Replace(strings.Replace(body, params, params+"  Stage:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /store/stage\n", 1),
			"Resources:\n", "Conditions:\n  IsLive: !Equals [!Ref Stage, live]\nResources:\n", 1), mapEnd, mapEnd+"      Enabled: !If [IsLive, true, false]\n", 1), nil, "eventSource", ".eventSource: BreaksErasure"},
		"enabled in every deploy an SSM value picks": {strings.Replace(strings.Replace(strings.Replace(body, params, params+"  Stage:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /store/stage\n", 1),
			"Resources:\n", "Conditions:\n  IsLive: !Equals [!Ref Stage, live]\nResources:\n", 1), mapEnd, mapEnd+"      Enabled: !If [IsLive, true, true]\n", 1), nil, "eventSource", ""},
		"a pass-two delay from another app's export": {strings.Replace(body, envVars, envVars+"          ERASURE_PASS_TWO_DELAY_SECONDS: !ImportValue other-app-delay\n", 1), nil, "passTwoDelay", ".passTwoDelay: UnresolvedToken"},
	} {
		t.Run(name, func(t *testing.T) { assertFindingsWith(t, c.body, c.params, c.about, c.want) })
	}
}

// assertFindingsWith is assertFindings with parameter values.
func assertFindingsWith(t *testing.T, body string, params map[string]string, about, want string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "store.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := CheckPaths([]string{p}, Config{TopicArns: []string{"arn:aws:sns:eu-west-1:111111111111:erasure-topic"}, Parameters: params})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stores) == 0 {
		t.Fatal("no store found")
	}
	var lines []string
	for _, f := range res.Findings {
		if strings.Contains(f.Path.String(), about) {
			lines = append(lines, f.Path.String()+": "+string(f.Type))
		}
	}
	joined := strings.Join(lines, "\n")
	if want == "" && len(lines) != 0 || want != "" && !strings.Contains(joined, want) {
		t.Errorf("findings about %q:\n%s\nwant %q", about, joined, want)
	}
}

// TestDeliveryAsIAMDecidesIt: whether SNS, acting for the erasure topic, may
// send to the store's queue and use its key is decided by the one evaluator
// the access matrix uses, with the request context SNS sends: an
// unconditional Deny, an Allow for a stale topic only, a key condition on the
// store's own account and a key reached through an alias are judged as IAM
// and KMS would.
func TestDeliveryAsIAMDecidesIt(t *testing.T) {
	body := cleanStore(t)
	const (
		policyEnd = "                aws:PrincipalArn: !GetAtt HandlerRole.Arn\n"
		allowSNS  = "            Action: sqs:SendMessage\n            Resource: !GetAtt Requests.Arn\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n"
		keyCond   = "            Action: [kms:Decrypt, kms:GenerateDataKey]\n            Resource: \"*\"\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n"
		queueKey  = "      KmsMasterKeyId: !GetAtt Key.Arn\n      MessageRetentionPeriod: 86400\n      VisibilityTimeout: 360\n"
	)
	mustContain(t, body, policyEnd, allowSNS, keyCond, queueKey)
	alias := "  RequestsKeyAlias:\n    Type: AWS::KMS::Alias\n    Properties:\n      AliasName: alias/store-requests\n      TargetKeyId: !Ref Key\n"
	viaAlias := strings.Replace(body, queueKey, strings.Replace(queueKey, "!GetAtt Key.Arn", "alias/store-requests", 1), 1)
	viaAlias = strings.Replace(viaAlias, "Resources:\n", "Resources:\n"+alias, 1)
	for name, c := range map[string]struct{ body, about, want string }{
		"clean": {body, "Access[", ""},
		"an unconditional Deny for SNS": {strings.Replace(body, policyEnd, policyEnd+
			"          - Effect: Deny\n            Principal: { Service: sns.amazonaws.com }\n            Action: sqs:SendMessage\n            Resource: !GetAtt Requests.Arn\n", 1),
			".queuePolicy", ": BreaksErasure"},
		"an Allow for a stale topic only":                                 {strings.Replace(body, allowSNS, strings.Replace(allowSNS, "erasure-topic", "erasure-topic-old", 1), 1), ".queuePolicy", ": BreaksErasure"},
		"an Allow for any topic of the topic owner's account":             {strings.Replace(body, allowSNS, strings.Replace(allowSNS, "ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "StringEquals: { aws:SourceAccount: \"111111111111\" }", 1), 1), ".queuePolicy", ""},
		"an Allow for any topic, which the policy's Deny still keeps out": {strings.Replace(body, allowSNS, strings.Replace(allowSNS, "ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "ArnLike: { aws:SourceArn: \"arn:aws:sns:*:*:*\" }", 1), 1), ".queuePolicy", ""},
		"a key for any topic": {strings.Replace(body, keyCond, strings.Replace(keyCond,
			"ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "ArnLike: { aws:SourceArn: \"arn:aws:sns:*:*:*\" }", 1), 1),
			".encryptionKey", ": ConfusedDeputy"},
		"a key condition on the store's account": {strings.Replace(body, keyCond, strings.Replace(keyCond,
			"ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "StringEquals: { aws:SourceAccount: \"222222222222\" }", 1), 1),
			".encryptionKey", ": BreaksErasure"},
		"a key condition on the topic owner's account": {strings.Replace(body, keyCond, strings.Replace(keyCond,
			"ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "StringEquals: { aws:SourceAccount: \"111111111111\" }", 1), 1),
			".encryptionKey", ""},
		"the key through an alias": {viaAlias, "Access[", ""},
		"the key through an alias, SNS not allowed": {strings.Replace(viaAlias, keyCond, "            Action: [kms:Decrypt]\n            Resource: \"*\"\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n", 1),
			".encryptionKey", ": BreaksErasure"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, c.about, c.want) })
	}
}

// TestIntrinsicsAsCloudFormationResolvesThem: Fn::FindInMap, Fn::Select,
// Fn::Split, AWS::NoValue and resource conditions, each where a rule reads
// it, through CheckPaths on a YAML template.
func TestIntrinsicsAsCloudFormationResolvesThem(t *testing.T) {
	body := cleanStore(t)
	const (
		visibility = "      VisibilityTimeout: 360\n"
		queueKey   = "      KmsMasterKeyId: !GetAtt Key.Arn\n      MessageRetentionPeriod: 86400\n      VisibilityTimeout: 360\n"
		topic      = "      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n"
		params     = "Parameters:\n"
		mappings   = "Mappings:\n  Settings:\n    prod: { Visibility: 360, Topics: \"arn:aws:sns:eu-west-1:111111111111:erasure-topic,arn:aws:sns:eu-west-1:111111111111:other\" }\n    dev: { Visibility: 100 }\n"
		stage      = "  Stage:\n    Type: String\n    Default: prod\n"
		isDev      = "Conditions:\n  IsDev: !Equals [!Ref Stage, dev]\n"
	)
	mustContain(t, body, visibility, queueKey, topic, params)
	with := func(old, new string) string {
		b := strings.Replace(body, params, mappings+isDev+params+stage, 1)
		return strings.Replace(b, old, new, 1)
	}
	for name, c := range map[string]struct {
		body   string
		params map[string]string
		about  string
		want   string
	}{
		"visibility from a mapping, right":       {with(visibility, "      VisibilityTimeout: !FindInMap [Settings, !Ref Stage, Visibility]\n"), nil, "visibilityTimeout", ""},
		"visibility from a mapping, wrong (dev)": {with(visibility, "      VisibilityTimeout: !FindInMap [Settings, !Ref Stage, Visibility]\n"), map[string]string{"Stage": "dev"}, "visibilityTimeout", ": NotDerived"},
		"the topic picked from a split list":     {with(topic, "      TopicArn: !Select [0, !Split [\",\", !FindInMap [Settings, prod, Topics]]]\n"), nil, "visibilityTimeout", ""},
		"the key dropped by AWS::NoValue in dev": {with(queueKey, strings.Replace(queueKey, "!GetAtt Key.Arn", "!If [IsDev, !Ref AWS::NoValue, !GetAtt Key.Arn]", 1)), map[string]string{"Stage": "dev"}, "encryptionKey", ": Missing"},
		"the key kept outside dev":               {with(queueKey, strings.Replace(queueKey, "!GetAtt Key.Arn", "!If [IsDev, !Ref AWS::NoValue, !GetAtt Key.Arn]", 1)), nil, "encryptionKey", ""},
		"a visibility removed by AWS::NoValue":   {with(visibility, "      VisibilityTimeout: !Ref AWS::NoValue\n"), nil, "visibilityTimeout", ": NotDerived"},
	} {
		t.Run(name, func(t *testing.T) { assertFindingsWith(t, c.body, c.params, c.about, c.want) })
	}
}

// TestQueueURLsAsTheHandlerReadsThem: the handler's own queue URL must be the
// queue its event source reads, by reference or by the URL of its name; a
// value only deploy knows is UnresolvedToken.
func TestQueueURLsAsTheHandlerReadsThem(t *testing.T) {
	body := cleanStore(t)
	const (
		envVars  = "          ERASURE_SUBSCRIBER: plain\n"
		named    = "      VisibilityTimeout: 360\n"
		params   = "Parameters:\n"
		fromSSM  = "  QueueURL:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /store/queue-url\n"
		ownURL   = "https://sqs.eu-west-1.amazonaws.com/111111111111/store-requests"
		otherURL = "https://sqs.eu-west-1.amazonaws.com/111111111111/store-other"
	)
	mustContain(t, body, envVars, named, params)
	const own = "          ERASURE_QUEUE_URL: !Ref Requests\n"
	mustContain(t, body, own)
	env := func(b, value string) string {
		return strings.Replace(b, own, "          ERASURE_QUEUE_URL: "+value+"\n", 1)
	}
	withName := strings.Replace(body, named, named+"      QueueName: store-requests\n", 1)
	for name, c := range map[string]struct{ body, want string }{
		"by reference":                        {env(body, "!Ref Requests"), ""},
		"the dead-letter queue":               {env(body, "!Ref DeadLetters"), ": BreaksErasure"},
		"by the URL of its name":              {env(withName, ownURL), ""},
		"by the URL of another name":          {env(withName, otherURL), ": BreaksErasure"},
		"a literal URL, the name is deploy's": {env(body, ownURL), ": UnresolvedToken"},
		"from SSM":                            {strings.Replace(env(body, "!Ref QueueURL"), params, params+fromSSM, 1), ": UnresolvedToken"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, ".environment.ERASURE_QUEUE_URL", c.want) })
	}
}

// TestAStoreAcrossStacks: the subscription, the queue and the functions
// reading it may be in different stacks of one app, joined by exports, as
// CloudFormation deploys them: the store is found and every reader judged.
func TestAStoreAcrossStacks(t *testing.T) {
	body := cleanStore(t)
	const sub = "  Subscription:\n    Type: AWS::SNS::Subscription\n    Properties:\n      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n      Protocol: sqs\n      Endpoint: !GetAtt Requests.Arn\n      RawMessageDelivery: true\n"
	mustContain(t, body, sub)
	exported := body + "Outputs:\n  RequestsArn:\n    Value: !GetAtt Requests.Arn\n    Export: { Name: store-requests-arn }\n"
	subscription := "Resources:\n" + strings.Replace(sub, "!GetAtt Requests.Arn", "!ImportValue store-requests-arn", 1)
	secondReader := `Resources:
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement:
          - { Effect: Allow, Principal: { Service: lambda.amazonaws.com }, Action: sts:AssumeRole }
  Slow:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: nodejs22.x
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Timeout: 900
      Code: { ZipFile: "exports.handler = async () => ({ batchItemFailures: [] })" }
  SlowMapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref Slow
      EventSourceArn: !ImportValue store-requests-arn
      FunctionResponseTypes: [ReportBatchItemFailures]
`
	check := func(t *testing.T, files map[string]string) Findings {
		t.Helper()
		dir := t.TempDir()
		var paths []string
		for name, b := range files {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		res, err := CheckPaths(paths, Config{TopicArns: []string{"arn:aws:sns:eu-west-1:111111111111:erasure-topic"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Stores) != 1 {
			t.Fatalf("%d stores, want 1", len(res.Stores))
		}
		return res.Findings
	}
	t.Run("the subscription in another stack", func(t *testing.T) {
		if lines := check(t, map[string]string{"queue.yaml": strings.Replace(exported, sub, "", 1), "subscription.yaml": subscription}).Strings(); len(lines) != 0 {
			t.Errorf("a clean store across stacks was refused:\n%s", strings.Join(lines, "\n"))
		}
	})
	t.Run("a second reader in another stack", func(t *testing.T) {
		found := check(t, map[string]string{"store.yaml": exported, "reader.yaml": secondReader})
		lines := strings.Join(found.Strings(), "\n")
		for _, f := range found {
			if f.LogicalID == "Slow" && filepath.Base(f.Template) != "reader.yaml" {
				t.Errorf("the line about Slow points at %s, not the stack that declares it", filepath.Base(f.Template))
			}
		}
		for _, want := range []string{".reader[Slow].handlerTimeout: AboveCap", ".reader[Slow].visibilityTimeout: NotDerived"} {
			if !strings.Contains(lines, want) {
				t.Errorf("no %q in:\n%s", want, lines)
			}
		}
	})
}

// TestPolicyQuotas: a resource policy its service would refuse at deploy
// (statements, actions in a statement, bytes) is refused at synth; the
// clean store's policies are within every quota.
func TestPolicyQuotas(t *testing.T) {
	body := cleanStore(t)
	const deny = "          - Sid: OnlyTheTopicAndTheHandlerSend\n"
	mustContain(t, body, deny)
	extra := func(n int, stmt string) string {
		return strings.Replace(body, deny, strings.Repeat(stmt, n)+deny, 1)
	}
	const tag = "          - { Effect: Deny, Principal: \"*\", Action: sqs:TagQueue, Resource: \"*\" }\n"
	const wide = "          - { Effect: Deny, Principal: \"*\", Action: [sqs:TagQueue, sqs:UntagQueue, sqs:PurgeQueue, sqs:DeleteQueue, sqs:SetQueueAttributes, sqs:AddPermission, sqs:RemovePermission, sqs:CreateQueue], Resource: \"*\" }\n"
	long := "          - { Sid: " + strings.Repeat("x", 8200) + ", Effect: Deny, Principal: \"*\", Action: sqs:TagQueue, Resource: \"*\" }\n"
	for name, c := range map[string]struct{ body, want string }{
		"clean":                    {body, ""},
		"20 statements":            {extra(18, tag), ""},
		"21 statements":            {extra(19, tag), ": Invalid"},
		"8 actions in a statement": {extra(1, wide), ": Invalid"},
		"past 8,192 bytes":         {extra(1, long), ": Invalid"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, "Policy[", c.want) })
	}
}

// TestTransformsAreUnknowableAtSynth: a SAM or macro template is expanded at
// deploy; the check says so instead of judging what it cannot see.
func TestTransformsAreUnknowableAtSynth(t *testing.T) {
	body := cleanStore(t)
	assertFindings(t, body, ".transform", "")
	assertFindings(t, "Transform: AWS::Serverless-2016-10-31\n"+body, "Template[", ".transform: UnresolvedToken")
	assertFindings(t, "Transform: [AWS::LanguageExtensions]\n"+body, "Template[", ".transform: UnresolvedToken")
}

// TestReferencesByARN: an event source or a subscription that names the
// queue by the ARN of its name (built from the stack's own account and
// region), and a reserved concurrency from a parameter, resolve as
// CloudFormation resolves them.
func TestReferencesByARN(t *testing.T) {
	clean := cleanStore(t)
	body := strings.Replace(clean, "      VisibilityTimeout: 360\n", "      VisibilityTimeout: 360\n      QueueName: store-requests\n", 1)
	const (
		esmSource = "      EventSourceArn: !GetAtt Requests.Arn\n      BatchSize: 1\n"
		endpoint  = "      Endpoint: !GetAtt Requests.Arn\n"
		handler   = "      Handler: index.handler\n"
		params    = "Parameters:\n"
		byARN     = "!Sub \"arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:store-requests\""
	)
	mustContain(t, body, esmSource, endpoint, handler, params)
	for name, c := range map[string]struct{ body, about, want string }{
		"event source by the queue's ARN": {strings.Replace(body, esmSource, "      EventSourceArn: "+byARN+"\n      BatchSize: 1\n", 1), ".handler", ""},
		"subscription by the queue's ARN": {strings.Replace(body, endpoint, "      Endpoint: "+byARN+"\n", 1), ".endpoint", ""},
		"reserved concurrency 0 from a parameter": {strings.Replace(strings.Replace(body, params, params+"  Reserved:\n    Type: Number\n    Default: 0\n", 1),
			handler, handler+"      ReservedConcurrentExecutions: !Ref Reserved\n", 1), ".reservedConcurrency", ": BreaksErasure"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, c.about, c.want) })
	}
}

// cleanStore is the clean plain-template store every rule's rows start from.
func cleanStore(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustContain fails the test when the fixture no longer holds a part the
// rows edit (a row that edits nothing would pass for the wrong reason).
func mustContain(t *testing.T, body string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(body, p) {
			t.Fatalf("the fixture changed: %q", p)
		}
	}
}

// TestInlineSubscriptionsOnTheTopic: a store subscribed inside the erasure
// topic's own Subscription property cannot have raw delivery: refused.
func TestInlineSubscriptionsOnTheTopic(t *testing.T) {
	body := cleanStore(t)
	const topic = "  ErasureTopic:\n    Type: AWS::SNS::Topic\n    Properties:\n      TopicName: erasure-topic\n"
	inline := topic + "      Subscription:\n        - { Protocol: sqs, Endpoint: !GetAtt Requests.Arn }\n"
	withTopic := func(tp string) string { return strings.Replace(body, "Resources:\n", "Resources:\n"+tp, 1) }
	assertFindings(t, withTopic(topic), "Topic[", "")
	assertFindings(t, withTopic(inline), "Topic[", ".subscription[0]: Invalid")
	// The store subscribed to the template's own topic by reference is found.
	assertFindings(t, strings.Replace(withTopic(topic), "      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n", "      TopicArn: !Ref ErasureTopic\n", 1), "", "")
}

// TestReadersAsTheQueuePolicyDrawsThem: every principal the queue policy can
// let read is a reader the check cannot judge: one it names, one a pattern
// draws, anyone; a pattern that only narrows a Deny lets no one in.
func TestReadersAsTheQueuePolicyDrawsThem(t *testing.T) {
	body := cleanStore(t)
	const deny = "          - Sid: OnlyTheTopicAndTheHandlerSend\n"
	mustContain(t, body, deny)
	with := func(stmt string) string { return strings.Replace(body, deny, stmt+deny, 1) }
	for name, c := range map[string]struct{ body, want string }{
		"clean":                              {body, ""},
		"a poller of another account by ARN": {with("          - { Effect: Allow, Principal: { AWS: arn:aws:iam::333333333333:role/poller }, Action: sqs:ReceiveMessage, Resource: \"*\" }\n"), ": BreaksErasure"},
		"anyone whose ARN a pattern draws":   {with("          - { Effect: Allow, Principal: \"*\", Action: sqs:ReceiveMessage, Resource: \"*\", Condition: { ArnLike: { aws:PrincipalArn: \"arn:aws:iam::333333333333:role/poller-*\" } } }\n"), ": BreaksErasure"},
		"anyone at all":                      {with("          - { Effect: Allow, Principal: \"*\", Action: sqs:ReceiveMessage, Resource: \"*\" }\n"), ": BreaksErasure"},
		"a pattern in a Deny only":           {with("          - { Effect: Deny, Principal: \"*\", Action: sqs:ReceiveMessage, Resource: \"*\", Condition: { ArnLike: { aws:PrincipalArn: \"arn:aws:iam::333333333333:role/poller-*\" } } }\n"), ""},
		"a service":                          {with("          - { Effect: Allow, Principal: { Service: events.amazonaws.com }, Action: sqs:ReceiveMessage, Resource: \"*\" }\n"), ": BreaksErasure"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, ".readers", c.want) })
	}
}

// TestServiceQuotas: a function's environment past Lambda's 4 KB, counting
// each role id deploy writes at its deployed 21 characters; a dashboard past
// CloudWatch's 500 widgets; a template past CloudFormation's 500 resources
// or 200 outputs; a parameter past SSM's 4 KB: each refused at synth, at
// the quota and not one under it.
func TestServiceQuotas(t *testing.T) {
	body := cleanStore(t)
	const vars = "          ERASURE_QUEUE_URL: !Ref Requests\n"
	mustContain(t, body, vars)
	roleIDs := func(n int) string { // "store=<role id>," n times, through Fn::Join
		var b strings.Builder
		b.WriteString("          ROSTER: !Join [\"\", [")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "\"s%04d=\", !GetAtt HandlerRole.RoleId, \",\", ", i)
		}
		b.WriteString("\"\"]]\n")
		return strings.Replace(body, vars, vars+b.String(), 1)
	}
	// The clean store's 3 variables are 132 bytes at their lower bound (its
	// own queue's URL counts as empty); ROSTER adds 6 + 28 n.
	under, past := (4096-132-6)/28, (4096-132-6)/28+1
	widgets := func(n int) string {
		w := strings.TrimSuffix(strings.Repeat(`{"type":"text","width":6,"height":1,"properties":{"markdown":"x"}},`, n), ",")
		return body + "  Dashboard:\n    Type: AWS::CloudWatch::Dashboard\n    Properties:\n      DashboardBody: '{\"widgets\":[" + w + "]}'\n"
	}
	resources := func(n int) string {
		var b strings.Builder
		b.WriteString(body)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  Topic%d:\n    Type: AWS::SNS::Topic\n    Properties: {}\n", i)
		}
		return b.String()
	}
	base := strings.Count(body[strings.Index(body, "\nResources:"):], "\n    Type: ") // the clean store's resources
	outputs := func(n int) string {
		var b strings.Builder
		b.WriteString(body + "Outputs:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  Out%d:\n    Value: x\n", i)
		}
		return b.String()
	}
	parameter := func(n int) string {
		return body + "  Page:\n    Type: AWS::SSM::Parameter\n    Properties:\n      Type: String\n      Value: !Join [\"\", [\"" + strings.Repeat("x", n-21) + "\", !GetAtt HandlerRole.RoleId]]\n"
	}
	// The clean store's queue policy has 3 conditions; each statement added
	// here one more.
	conditions := func(n int) string {
		const anchor = "  Subscription:\n"
		mustContain(t, body, anchor)
		deny := "          - Effect: Deny\n            Principal: { AWS: \"*\" }\n            Action: sqs:TagQueue\n            Resource: !GetAtt Requests.Arn\n" +
			"            Condition: { StringNotEquals: { aws:PrincipalAccount: \"111111111111\" } }\n"
		return strings.Replace(body, anchor, strings.Repeat(deny, n-3)+anchor, 1)
	}
	for name, c := range map[string]struct{ body, about, want string }{
		"a queue policy of 10 conditions": {conditions(10), "].quota", ""},
		"a queue policy of 11 conditions": {conditions(11), "].quota", ": Invalid"},
		"environment at 4 KB":             {roleIDs(under), "].environment", ""},
		"environment past 4 KB":           {roleIDs(past), "].environment", ": Invalid"},
		"500 widgets":                     {widgets(500), "].widgets", ""},
		"501 widgets":                     {widgets(501), "].widgets", ": Invalid"},
		"500 resources":                   {resources(500 - base), "].resources", ""},
		"501 resources":                   {resources(501 - base), "].resources", ": Invalid"},
		"200 outputs":                     {outputs(200), "].outputs", ""},
		"201 outputs":                     {outputs(201), "].outputs", ": Invalid"},
		"a parameter of 4,096":            {parameter(4096), "].value", ""},
		"a parameter of 4,097":            {parameter(4097), "].value", ": Invalid"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, c.about, c.want) })
	}
}
