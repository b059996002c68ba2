// A store team's CDK app in Go on the generated Go binding of the released
// package (the Go module jsii-pacmak makes), written outside the repository
// (test/outside_in_test.go builds it in an empty folder). The channel is
// another app's, imported by ARN. It builds:
//
//	STORES=n           n stores (store-001 …), each its own stack;
//	BREAK=hatches      five stores, each broken after construction by one
//	                   escape hatch, which ErasureCheck must refuse at synth;
//	BREAK=landing-zone one store under a permissions boundary defined outside
//	                   the app on every role (ACK=rule acknowledges it,
//	                   BOUNDARY_FILE gives ErasureCheck its document);
//	BREAK=aspects      one store under organisation-wide Aspects (14-day
//	                   retention on every queue, 900 s on every function);
//	SPEC=file          the stores of a refusal spec (CONSTANTS names the
//	                   channel constants file), as the Go test builds them.
//
// HANDLER_ASSET is the directory of the handler's code.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	ecc "github.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs"
)

const (
	topicArn         = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
	responseQueueArn = "arn:aws:sqs:eu-west-1:111111111111:erasure-responses"
	responseKeyArn   = "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000"
)

var env = &awscdk.Environment{Account: jsii.String("222222222222"), Region: jsii.String("eu-west-1")}

func asset() string {
	if a := os.Getenv("HANDLER_ASSET"); a != "" {
		return a
	}
	return "handler"
}

func handlerProps() *awslambda.FunctionProps {
	return &awslambda.FunctionProps{Runtime: awslambda.Runtime_PROVIDED_AL2023(), Architecture: awslambda.Architecture_ARM_64(),
		Handler: jsii.String("bootstrap"), Code: awslambda.Code_FromAsset(jsii.String(asset()), nil)}
}

func store(app awscdk.App, name string) ecc.ErasureSubscriber {
	stack := awscdk.NewStack(app, jsii.String("Store"+name[len(name)-3:]), &awscdk.StackProps{Env: env})
	return ecc.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &ecc.ErasureSubscriberProps{
		Name:  jsii.String(name),
		Topic: awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(topicArn)),
		ResponseQueue: awssqs.Queue_FromQueueAttributes(stack, jsii.String("ErasureResponses"), &awssqs.QueueAttributes{
			QueueArn: jsii.String(responseQueueArn), KeyArn: jsii.String(responseKeyArn)}),
		HandlerProps: handlerProps(),
	})
}

// l1 is the first CloudFormation resource of the type under scope.
func l1(scope constructs.IConstruct, typ string) awscdk.CfnResource {
	for _, c := range *scope.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		if *awscdk.CfnResource_IsCfnResource(c) && *c.(awscdk.CfnResource).CfnResourceType() == typ {
			return c.(awscdk.CfnResource)
		}
	}
	panic("no " + typ)
}

// organisationDefaults is an organisation-wide Aspect: 14-day retention on
// every queue, 900 s on every function. jsii passes an object by reference:
// give it a pointer.
type organisationDefaults struct{ retentionSeconds, timeoutSeconds int }

func (a *organisationDefaults) Visit(node constructs.IConstruct) {
	if !*awscdk.CfnResource_IsCfnResource(node) {
		return
	}
	switch r := node.(awscdk.CfnResource); *r.CfnResourceType() {
	case "AWS::SQS::Queue":
		r.AddPropertyOverride(jsii.String("MessageRetentionPeriod"), a.retentionSeconds)
	case "AWS::Lambda::Function":
		r.AddPropertyOverride(jsii.String("Timeout"), a.timeoutSeconds)
	}
}

// landingZoneBoundary is a permissions boundary defined outside the app.
const landingZoneBoundary = "arn:aws:iam::222222222222:policy/landing-zone"

// landingZone is a landing zone's Aspect: the boundary on every role (a
// pointer, as jsii passes objects by reference).
type landingZone struct{ boundary string }

func (a *landingZone) Visit(node constructs.IConstruct) {
	if *awscdk.CfnResource_IsCfnResource(node) {
		if r := node.(awscdk.CfnResource); *r.CfnResourceType() == "AWS::IAM::Role" {
			r.AddPropertyOverride(jsii.String("PermissionsBoundary"), a.boundary)
		}
	}
}

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	checkProps := &ecc.ErasureCheckProps{TopicArns: jsii.Strings(topicArn)}
	if f := os.Getenv("BOUNDARY_FILE"); f != "" {
		checkProps.Boundaries = &map[string]*string{landingZoneBoundary: jsii.String(f)}
	}
	awscdk.Validations_Of(app).AddPlugins(ecc.NewErasureCheck(checkProps))
	switch {
	case os.Getenv("BREAK") == "hatches":
		l1(store(app, "store-001").Queue(), "AWS::SQS::Queue").AddPropertyOverride(jsii.String("VisibilityTimeout"), 30)
		store(app, "store-002").DeadLetterQueue().Node().DefaultChild().(awssqs.CfnQueue).SetMessageRetentionPeriod(jsii.Number(1209600))
		l1(store(app, "store-003"), "AWS::Lambda::EventSourceMapping").AddPropertyOverride(jsii.String("BatchSize"), 11)
		l1(store(app, "store-004"), "AWS::Lambda::EventSourceMapping").AddPropertyOverride(jsii.String("Enabled"), false)
		l1(store(app, "store-005").Queue(), "AWS::SQS::Queue").AddPropertyOverride(jsii.String("RedrivePolicy.maxReceiveCount"), 10)
	case os.Getenv("BREAK") == "aspects":
		store(app, "store-001")
		awscdk.Aspects_Of(app).Add(&organisationDefaults{retentionSeconds: 1209600, timeoutSeconds: 900}, nil)
	case os.Getenv("BREAK") == "landing-zone":
		s := store(app, "store-001")
		awscdk.Aspects_Of(app).Add(&landingZone{boundary: landingZoneBoundary}, nil)
		if rule := os.Getenv("ACK"); rule != "" {
			ecc.ErasureCheck_Acknowledge(s, jsii.String(rule), jsii.String("the landing zone's boundary allows every action the handler needs"))
		}
	case os.Getenv("SPEC") != "":
		spec(app, os.Getenv("SPEC"), os.Getenv("CONSTANTS"))
	default:
		n, err := strconv.Atoi(os.Getenv("STORES"))
		if err != nil {
			n = 1
		}
		for i := 1; i <= n; i++ {
			store(app, fmt.Sprintf("store-%03d", i))
		}
	}
	defer func() {
		if r := recover(); r != nil { // a refused synth: print CDK's report, exit 1
			fmt.Println(r)
			os.Exit(1)
		}
	}()
	app.Synth(nil)
}

// spec builds the stores of a refusal spec (test/testdata/subscriber-refusals.json).
func spec(app awscdk.App, specFile, constantsFile string) {
	var s struct {
		Cases []struct {
			Name  string         `json:"name"`
			Props map[string]any `json:"props"`
		} `json:"cases"`
	}
	var file struct {
		Constants, AWSLimits map[string]struct {
			Value float64 `json:"value"`
		}
	}
	for f, v := range map[string]any{specFile: &s, constantsFile: &file} {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			panic(err)
		}
	}
	constant := func(name string) float64 {
		if c, ok := file.Constants[name]; ok {
			return c.Value
		}
		return file.AWSLimits[name].Value
	}
	ch := awscdk.NewStack(app, jsii.String("Channel"), nil)
	topic := awssns.NewTopic(ch, jsii.String("Topic"), nil)
	responses := awssqs.NewQueue(ch, jsii.String("ResponseQueue"), &awssqs.QueueProps{Encryption: awssqs.QueueEncryption_KMS,
		EncryptionMasterKey: awskms.NewKey(ch, jsii.String("ResponseKey"), &awskms.KeyProps{EnableKeyRotation: jsii.Bool(true)})})
	for i, c := range s.Cases {
		p := c.Props
		var sp *awscdk.StackProps
		if e, ok := p["env"].(map[string]any); ok {
			sp = &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String(e["account"].(string)), Region: jsii.String(e["region"].(string))}}
		}
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Case%02d", i)), sp)
		var token *float64
		tok := func() *float64 {
			if token == nil {
				token = awscdk.NewCfnParameter(stack, jsii.String("Tok"), &awscdk.CfnParameterProps{Type: jsii.String("Number")}).ValueAsNumber()
			}
			return token
		}
		num := func(m map[string]any, k string, def float64) float64 {
			if v, ok := m[k].(float64); ok {
				return v
			}
			return def
		}
		duration := func(v any) awscdk.Duration {
			if v == "token" {
				return awscdk.Duration_Seconds(tok())
			}
			d := v.(map[string]any)
			if ms, ok := d["millis"].(float64); ok {
				return awscdk.Duration_Millis(jsii.Number(ms))
			}
			if of, ok := d["of"].(string); ok {
				return awscdk.Duration_Seconds(jsii.Number(constant(of)*num(d, "times", 1) + num(d, "plus", 0)))
			}
			return awscdk.Duration_Seconds(jsii.Number(d["seconds"].(float64)))
		}
		number := func(v any) *float64 {
			if v == "token" {
				return tok()
			}
			n := v.(map[string]any)
			if of, ok := n["of"].(string); ok {
				return jsii.Number(constant(of) + num(n, "plus", 0))
			}
			return jsii.Number(n["value"].(float64))
		}
		role := func(r any) awsiam.IRole {
			if r == "imported" {
				return awsiam.Role_FromRoleArn(stack, jsii.String("Imported"), jsii.String("arn:aws:iam::222222222222:role/their-handler"), nil)
			}
			return awsiam.NewRole(stack, jsii.String("Given"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)})
		}
		props := &ecc.ErasureSubscriberProps{Name: jsii.String(c.Name), Topic: topic, ResponseQueue: responses, HandlerProps: handlerProps()}
		switch t := p["topic"].(type) {
		case string:
			props.Topic = awssns.NewTopic(stack, jsii.String("Fifo"), &awssns.TopicProps{Fifo: jsii.Bool(true), TopicName: jsii.String("erasure.fifo")})
		case map[string]any:
			props.Topic = awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(t["arn"].(string)))
		}
		switch rq := p["responseQueue"].(type) {
		case string:
			if rq == "fifo" {
				props.ResponseQueue = awssqs.NewQueue(stack, jsii.String("Fifo"), &awssqs.QueueProps{Fifo: jsii.Bool(true)})
			} else {
				props.ResponseQueue = awssqs.Queue_FromQueueArn(stack, jsii.String("Responses"), jsii.String("arn:aws:sqs:eu-west-1:111111111111:erasure-responses"))
			}
		case map[string]any:
			props.ResponseQueue = awssqs.Queue_FromQueueAttributes(stack, jsii.String("Responses"), &awssqs.QueueAttributes{
				QueueArn: jsii.String(rq["arn"].(string)), KeyArn: jsii.String(rq["keyArn"].(string))})
		}
		switch h := p["handler"].(type) {
		case string:
			props.HandlerProps = nil
		case map[string]any:
			own := handlerProps()
			own.Timeout = duration(h["timeout"])
			if r, ok := h["role"]; ok {
				own.Role = role(r)
			}
			props.Handler = awslambda.NewFunction(stack, jsii.String("Own"), own)
			if p["handlerPropsToo"] != true {
				props.HandlerProps = nil
			}
		}
		if v, ok := p["handlerPropsTimeout"]; ok {
			props.HandlerProps = handlerProps()
			props.HandlerProps.Timeout = duration(v)
		}
		if hp, ok := p["handlerProps"].(map[string]any); ok {
			props.HandlerProps = handlerProps()
			if r, ok := hp["role"]; ok {
				props.HandlerProps.Role = role(r)
			}
			if hp["logGroup"] == true {
				props.HandlerProps.LogGroup = awslogs.NewLogGroup(stack, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: awslogs.RetentionDays_ONE_WEEK})
			}
		}
		if admins, ok := p["administrators"].([]any); ok {
			var list []*string
			for _, a := range admins {
				list = append(list, jsii.String(a.(string)))
			}
			props.Administrators = &list
		}
		for k, dst := range map[string]*awscdk.Duration{"handlerTimeout": &props.HandlerTimeout, "visibilityTimeout": &props.VisibilityTimeout,
			"passTwoDelay": &props.PassTwoDelay, "batchTimeout": &props.BatchTimeout, "maxBatchingWindow": &props.MaxBatchingWindow, "retentionPeriod": &props.RetentionPeriod} {
			if v, ok := p[k]; ok {
				*dst = duration(v)
			}
		}
		for k, dst := range map[string]**float64{"maxReceiveCount": &props.MaxReceiveCount, "batchSize": &props.BatchSize} {
			if v, ok := p[k]; ok {
				*dst = number(v)
			}
		}
		ecc.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), props)
	}
}
