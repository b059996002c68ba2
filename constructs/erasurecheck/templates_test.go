package erasurecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeYAMLShortForms: every short-form intrinsic becomes its full
// form, GetAtt's dotted string is split, and numbers, booleans and dates
// read as encoding/json reads a JSON template.
func TestDecodeYAMLShortForms(t *testing.T) {
	doc, err := decodeTemplate([]byte(`
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      A: !Ref X
      B: !GetAtt Q.Arn
      C: !Sub "arn:${AWS::Partition}:sqs"
      D: !Join [":", [a, !Ref Y]]
      E: !ImportValue Exported
      F: 60
      G: true
      H: 2012-10-17
      I: !If [Cond, 1, 2]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := doc["Resources"].(map[string]any)["Q"].(map[string]any)["Properties"].(map[string]any)
	for key, want := range map[string]string{
		"A": "map[Ref:X]", "B": "map[Fn::GetAtt:[Q Arn]]", "C": "map[Fn::Sub:arn:${AWS::Partition}:sqs]",
		"D": "map[Fn::Join:[: [a map[Ref:Y]]]]", "E": "map[Fn::ImportValue:Exported]", "F": "60", "G": "true",
		"H": "2012-10-17", "I": "map[Fn::If:[Cond 1 2]]",
	} {
		if got := strings.TrimSpace(fmtValue(p[key])); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
}

func fmtValue(v any) string { return fmt.Sprint(v) }

// TestDecodeRejectsWithoutEchoing: a broken template is refused with a
// typed error naming the file and line, never the template's content.
func TestDecodeRejectsWithoutEchoing(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     `{"Resources": {"secret-value"`,
		"unknown tag":  "Resources:\n  Q:\n    Type: !Secret secret-value\n",
		"duplicate":    "Resources:\n  Q: {Type: a}\n  Q: {Type: secret-value}\n",
		"no resources": "Outputs: {secret-value: 1}\n",
		"merge key":    "x: &a {k: secret-value}\nResources:\n  <<: *a\n",
	} {
		_, err := decodeTemplate([]byte(body), "/some/dir/t.yaml")
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "secret-value") || strings.Contains(err.Error(), "/some/dir") {
			t.Errorf("%s: the error echoes the template or its path: %v", name, err)
		}
	}
}

// TestResourceLines: the line of each resource's logical id, in JSON and YAML.
func TestResourceLines(t *testing.T) {
	j := "{\n  \"Parameters\": {\"Resources\": {}},\n  \"Resources\": {\n    \"A\": {\"Type\": \"x\", \"Properties\": {\"B\": {\"C\": [1, {\"D\": 2}]}}},\n    \"B\": {\"Type\": \"y\"}\n  }\n}\n"
	if got := resourceLines([]byte(j)); got["A"] != 4 || got["B"] != 5 || len(got) != 2 {
		t.Errorf("JSON: %v, want A:4 B:5", got)
	}
	y, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := resourceLines(y)
	for id, line := range lines {
		if l := strings.Split(string(y), "\n")[line-1]; strings.TrimSpace(l) != id+":" {
			t.Errorf("%s at line %d, which reads %q", id, line, l)
		}
	}
	if len(lines) != 8 {
		t.Errorf("%d resources, want 8", len(lines))
	}
}

// TestIdentResolvesReferences: imports, nested-stack parameters, pseudo
// parameters, joins and subs render to one comparable identity.
func TestIdentResolvesReferences(t *testing.T) {
	parent := &template{Path: "p", Account: "111111111111", Region: "eu-west-1", Resources: map[string]resource{"Topic": {Type: "AWS::SNS::Topic"}}}
	child := &template{Path: "c", Account: "111111111111", Region: "eu-west-1", Resources: map[string]resource{},
		Parameters: map[string]any{"TopicParam": map[string]any{}}, parent: parent,
		parentParams: map[string]any{"TopicParam": map[string]any{"Ref": "Topic"}}}
	exporter := &template{Path: "e", Resources: map[string]resource{"Q": {Type: "AWS::SQS::Queue"}}}
	a := &assembly{templates: []*template{parent, child, exporter}, exports: map[string]exported{"Ex": {exporter, map[string]any{"Fn::GetAtt": []any{"Q", "Arn"}}}}}
	for _, tc := range []struct {
		t    *template
		v    any
		want string
	}{
		{child, map[string]any{"Ref": "TopicParam"}, "res:p#Topic"},
		{child, map[string]any{"Fn::ImportValue": "Ex"}, "res:e#Q"},
		{child, map[string]any{"Fn::Join": []any{"", []any{"https://sqs.", map[string]any{"Ref": "AWS::Region"}, ".", map[string]any{"Ref": "AWS::URLSuffix"}, "/1/q"}}}, "https://sqs.eu-west-1.amazonaws.com/1/q"},
		{child, map[string]any{"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:q"}, "arn:aws:sqs:eu-west-1:111111111111:q"},
		{child, map[string]any{"Fn::Sub": []any{"${X}/y", map[string]any{"X": map[string]any{"Fn::ImportValue": "Ex"}}}}, "res:e#Q/y"},
		{child, map[string]any{"Ref": "Nothing"}, ""},
		{child, map[string]any{"Fn::Join": []any{"", []any{"a", map[string]any{"Ref": "Nothing"}}}}, ""},
	} {
		if got := a.ident(tc.t, tc.v); got != tc.want {
			t.Errorf("ident(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := sqsURLToARN("https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-responses"); got != "arn:aws:sqs:eu-west-1:111111111111:erasure-responses" {
		t.Errorf("sqsURLToARN: %s", got)
	}
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "res:a/b#C", true}, {"arn:aws:sqs:*:111111111111:*", "arn:aws:sqs:eu-west-1:111111111111:q", true},
		{"res:p#Bucket/cbm/*", "res:p#Bucket/cbm/x/y", true}, {"arn:aws:sqs:eu-west-1:2:q", "arn:aws:sqs:eu-west-1:1:q", false},
		{"", "", false},
	} {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

// FuzzDecodeTemplate: the template reader never panics, and its errors never
// carry the input.
func FuzzDecodeTemplate(f *testing.F) {
	for _, p := range []string{"testdata/store-clean.yaml", "testdata/store-broken.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"Resources": {"A": {"Type": "AWS::SQS::Queue", "Properties": {"X": {"Fn::GetAtt": ["A", "Arn"]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := decodeTemplate(b, "fuzz.yaml")
		_ = resourceLines(b)
		if err != nil && len(b) > 12 && strings.Contains(err.Error(), string(b)) {
			t.Fatalf("the error echoes the input")
		}
	})
}

// FuzzReadAssembly feeds the assembly reader a manifest and a template of
// its own: it returns (a result or an error naming no input) and never
// panics, loops or leaves the directory.
func FuzzReadAssembly(f *testing.F) {
	f.Add([]byte(`{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"S.template.json"}}}}`),
		[]byte(`{"Resources":{"N":{"Type":"AWS::CloudFormation::Stack","Metadata":{"aws:asset:path":"S.template.json"},"Properties":{}}}}`))
	f.Add([]byte(`{"artifacts":{"A":{"type":"cdk:cloud-assembly","properties":{"directoryName":"."}}}}`), []byte(`{"Resources":{}}`))
	f.Add([]byte(`{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"../x"}}}}`), []byte("Resources:\n  A: !Bad x\n"))
	f.Fuzz(func(t *testing.T, manifest, tpl []byte) {
		dir := t.TempDir()
		if os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o600) != nil || os.WriteFile(filepath.Join(dir, "S.template.json"), tpl, 0o600) != nil {
			t.Skip()
		}
		_, err := readPaths([]string{dir})
		if err != nil && len(tpl) > 16 && strings.Contains(err.Error(), string(tpl)) {
			t.Fatalf("the error echoes the template")
		}
	})
}

// TestRedrivePolicyAsAJSONString: CloudFormation takes RedrivePolicy as an
// object or as a JSON string; the clean store with either form (the string
// built with !Sub) has no problem, and a string without a dead-letter queue,
// past the receive cap or not JSON is refused as the object form is.
func TestRedrivePolicyAsAJSONString(t *testing.T) {
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const object = "      RedrivePolicy:\n        deadLetterTargetArn: !GetAtt DeadLetters.Arn\n        maxReceiveCount: 5\n"
	if !strings.Contains(string(clean), object) {
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
			assertFindings(t, strings.Replace(string(clean), object, c.redrive, 1), "", c.want)
		})
	}
}

// TestResponseQueueByGrantNotVariable: a handler without
// ERASURE_RESPONSE_QUEUE_URL is not refused for the variable (the seed names
// none for the response queue); where the channel's response queue is in the
// app, its role must still be allowed to answer there.
func TestResponseQueueByGrantNotVariable(t *testing.T) {
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const envLine = "          ERASURE_RESPONSE_QUEUE_URL: !Sub \"https://sqs.eu-west-1.${AWS::URLSuffix}/111111111111/erasure-responses\"\n"
	if !strings.Contains(string(clean), envLine) {
		t.Fatal("the fixture's environment changed")
	}
	noVar := strings.Replace(string(clean), envLine, "", 1)
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
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const mapping = "      FunctionName: !Ref Handler\n      EventSourceArn: !GetAtt Requests.Arn\n"
	if !strings.Contains(string(clean), mapping) {
		t.Fatal("the fixture's event source changed")
	}
	const versionAndAlias = "  Version:\n    Type: AWS::Lambda::Version\n    Properties:\n      FunctionName: !Ref Handler\n" +
		"  Live:\n    Type: AWS::Lambda::Alias\n    Properties:\n      Name: live\n      FunctionName: !Ref Handler\n      FunctionVersion: !GetAtt Version.Version\n"
	for name, c := range map[string]struct{ target, want string }{
		"an alias":               {"Live", ""},
		"a version":              {"Version", ""},
		"an alias, slow handler": {"Live", ".visibilityTimeout: NotDerived"},
	} {
		t.Run(name, func(t *testing.T) {
			body := strings.Replace(string(clean), mapping, "      FunctionName: !Ref "+c.target+"\n      EventSourceArn: !GetAtt Requests.Arn\n", 1)
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
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const timeout = "      Timeout: 60\n"
	for reserved, want := range map[string]string{
		"":  "",
		"5": "",
		"2": ".reservedConcurrency: BelowMinimum",
		"0": ".reservedConcurrency: BreaksErasure",
	} {
		body := string(clean)
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
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(clean)
	must := func(old string) {
		if !strings.Contains(body, old) {
			t.Fatalf("the fixture changed: %q", old)
		}
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
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(clean)
	const (
		params   = "Parameters:\n"
		envVars  = "          ERASURE_SUBSCRIBER: plain\n"
		topic    = "      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n      Protocol: sqs\n"
		mapping  = "  Mapping:\n    Type: AWS::Lambda::EventSourceMapping\n"
		mapEnd   = "      FunctionResponseTypes: [ReportBatchItemFailures]\n"
		envParam = "  Env:\n    Type: String\n    Default: dev\n"
		isProd   = "Conditions:\n  IsProd: !Equals [!Ref Env, prod]\n  NotProd: !Not [!Condition IsProd]\n"
	)
	for _, s := range []string{params, envVars, topic, mapping, mapEnd} {
		if !strings.Contains(body, s) {
			t.Fatalf("the fixture changed: %q", s)
		}
	}
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
		if strings.Contains(f.Path, about) {
			lines = append(lines, f.Path+": "+string(f.Type))
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
	clean, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(clean)
	const (
		policyEnd = "                aws:PrincipalArn: !GetAtt HandlerRole.Arn\n"
		allowSNS  = "            Action: sqs:SendMessage\n            Resource: !GetAtt Requests.Arn\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n"
		keyCond   = "            Action: [kms:Decrypt, kms:GenerateDataKey]\n            Resource: \"*\"\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n"
		queueKey  = "      KmsMasterKeyId: !GetAtt Key.Arn\n      MessageRetentionPeriod: 86400\n      VisibilityTimeout: 360\n"
	)
	for _, s := range []string{policyEnd, allowSNS, keyCond, queueKey} {
		if !strings.Contains(body, s) {
			t.Fatalf("the fixture changed: %q", s)
		}
	}
	alias := "  RequestsKeyAlias:\n    Type: AWS::KMS::Alias\n    Properties:\n      AliasName: alias/store-requests\n      TargetKeyId: !Ref Key\n"
	viaAlias := strings.Replace(body, queueKey, strings.Replace(queueKey, "!GetAtt Key.Arn", "alias/store-requests", 1), 1)
	viaAlias = strings.Replace(viaAlias, "Resources:\n", "Resources:\n"+alias, 1)
	for name, c := range map[string]struct{ body, about, want string }{
		"clean": {body, "Access[", ""},
		"an unconditional Deny for SNS": {strings.Replace(body, policyEnd, policyEnd+
			"          - Effect: Deny\n            Principal: { Service: sns.amazonaws.com }\n            Action: sqs:SendMessage\n            Resource: !GetAtt Requests.Arn\n", 1),
			"Access[queue/", ": Missing"},
		"an Allow for a stale topic only": {strings.Replace(body, allowSNS, strings.Replace(allowSNS, "erasure-topic", "erasure-topic-old", 1), 1), "Access[queue/", ": Missing"},
		"a key condition on the store's account": {strings.Replace(body, keyCond, strings.Replace(keyCond,
			"ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "StringEquals: { aws:SourceAccount: \"222222222222\" }", 1), 1),
			"Access[queue-key/", ": Missing"},
		"a key condition on the topic owner's account": {strings.Replace(body, keyCond, strings.Replace(keyCond,
			"ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }", "StringEquals: { aws:SourceAccount: \"111111111111\" }", 1), 1),
			"Access[queue-key/", ""},
		"the key through an alias": {viaAlias, "Access[", ""},
		"the key through an alias, SNS not allowed": {strings.Replace(viaAlias, keyCond, "            Action: [kms:Decrypt]\n            Resource: \"*\"\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n", 1),
			"Access[queue-key/", ": Missing"},
	} {
		t.Run(name, func(t *testing.T) { assertFindings(t, c.body, c.about, c.want) })
	}
}
