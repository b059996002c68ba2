package test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/internal/storeteam"
)

func secs(n int) awscdk.Duration { return awscdk.Duration_Seconds(jsii.Number(float64(n))) }

func nodeHandler() *awslambda.FunctionProps { return storeteam.HandlerProps() }

// capCase is one store whose props break the caps: synth must fail with a
// line for each want entry ("property: ProblemType").
type capCase struct {
	name  string
	props func(stack awscdk.Stack, ch *erasure.ErasureChannel) erasure.ErasureSubscriberProps
	want  []string
}

func TestCapsAreRefusedAtSynth(t *testing.T) {
	c := contract.Channel()
	T, N, X, b := c.HandlerTimeoutCapSeconds, c.MaxReceiveCount, c.PassTwoDelayCapSeconds, c.BatchTimeoutCapSeconds
	base := func(ch *erasure.ErasureChannel) erasure.ErasureSubscriberProps {
		return erasure.ErasureSubscriberProps{Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()}
	}
	with := func(f func(p *erasure.ErasureSubscriberProps, stack awscdk.Stack)) func(awscdk.Stack, *erasure.ErasureChannel) erasure.ErasureSubscriberProps {
		return func(stack awscdk.Stack, ch *erasure.ErasureChannel) erasure.ErasureSubscriberProps {
			p := base(ch)
			f(&p, stack)
			return p
		}
	}
	numberToken := func(stack awscdk.Stack) *float64 {
		return awscdk.NewCfnParameter(stack, jsii.String("Tok"), &awscdk.CfnParameterProps{Type: jsii.String("Number")}).ValueAsNumber()
	}
	sqsDelayCase := c
	sqsDelayCase.PassTwoDelayCapSeconds = c.AWS.SQSDelayMaxSeconds + 100 // a hypothetical X past SQS's limit
	cases := []capCase{
		{"handler-timeout", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.HandlerTimeout = secs(T + 1) }), []string{"handlerTimeout: AboveCap"}},
		{"handler-timeout-zero", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.HandlerTimeout = secs(0) }), []string{"handlerTimeout: BelowMinimum"}},
		{"handler-timeout-token", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			p.HandlerTimeout = awscdk.Duration_Seconds(numberToken(s))
		}), []string{"handlerTimeout: UnresolvedToken"}},
		{"handler-timeout-fraction", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.HandlerTimeout = awscdk.Duration_Millis(jsii.Number(1500))
		}), []string{"handlerTimeout: Invalid"}},
		{"visibility-not-derived", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.HandlerTimeout, p.VisibilityTimeout = secs(T), secs(c.VisibilityTimeoutMultiplier*T-1)
		}), []string{"visibilityTimeout: NotDerived"}},
		{"max-receive", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.MaxReceiveCount = jsii.Number(float64(N + 1))
		}), []string{"maxReceiveCount: AboveCap"}},
		{"max-receive-token", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) { p.MaxReceiveCount = numberToken(s) }), []string{"maxReceiveCount: UnresolvedToken"}},
		{"pass-two", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.PassTwoDelay = secs(X + 1) }), []string{"passTwoDelay: AboveCap"}},
		{"response-queue-without-key", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			p.ResponseQueue = awssqs.Queue_FromQueueArn(s, jsii.String("Responses"), jsii.String("arn:aws:sqs:eu-west-1:111111111111:erasure-responses"))
		}), []string{"responseQueue: Missing"}},
		{"pass-two-past-sqs", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.Constants = &sqsDelayCase
			p.PassTwoDelay = secs(c.AWS.SQSDelayMaxSeconds + 1)
		}), []string{"passTwoDelay: AboveCap: 901 is above the cap of 900 (SQS's delay limit"}},
		{"batch-timeout", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.BatchTimeout = secs(b + 1) }), []string{"batchTimeout: AboveCap"}},
		{"batch-past-handler", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.HandlerTimeout, p.BatchTimeout = secs(T/2), secs(T/2+1)
		}), []string{"batchTimeout: AboveCap: 31 is above the cap of 30 (this store's handlerTimeout"}},
		{"retention", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.RetentionPeriod = secs(c.QueueRetentionSeconds / 2)
		}), []string{"retentionPeriod: NotDerived"}},
		{"batching-window", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.MaxBatchingWindow = secs(1) }), []string{"maxBatchingWindow: BreaksTiming"}},
		{"batching-window-token", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			p.MaxBatchingWindow = awscdk.Duration_Seconds(numberToken(s))
		}), []string{"maxBatchingWindow: UnresolvedToken"}},
		{"batch-size", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.BatchSize = jsii.Number(float64(c.AWS.LambdaSQSBatchSizeMax + 1))
		}), []string{"batchSize: AboveCap"}},
		{"fifo-topic", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			p.Topic = awssns.NewTopic(s, jsii.String("Fifo"), &awssns.TopicProps{Fifo: jsii.Bool(true), TopicName: jsii.String("erasure.fifo")})
		}), []string{"topic: FIFO"}},
		{"fifo-response-queue", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			p.ResponseQueue = awssqs.NewQueue(s, jsii.String("Fifo"), &awssqs.QueueProps{Fifo: jsii.Bool(true)})
		}), []string{"responseQueue: FIFO"}},
		{"handler-props-timeout", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			hp := nodeHandler()
			hp.Timeout = secs(T)
			p.HandlerProps = hp
		}), []string{"handlerProps.timeout: Invalid"}},
		{"existing-handler-too-slow", with(func(p *erasure.ErasureSubscriberProps, s awscdk.Stack) {
			hp := nodeHandler()
			hp.Timeout = secs(T + 30)
			p.HandlerProps = nil
			p.Handler = awslambda.NewFunction(s, jsii.String("Own"), hp)
		}), []string{"handlerTimeout: AboveCap"}},
		{"no-handler", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) { p.HandlerProps = nil }), []string{"handler: Invalid"}},
		{"several-together", with(func(p *erasure.ErasureSubscriberProps, _ awscdk.Stack) {
			p.HandlerTimeout = secs(T + 1)
			p.MaxReceiveCount = jsii.Number(float64(N + 1))
			p.PassTwoDelay = secs(X + 1)
			p.RetentionPeriod = secs(60)
		}), []string{"handlerTimeout: AboveCap", "maxReceiveCount: AboveCap", "passTwoDelay: AboveCap", "retentionPeriod: NotDerived"}},
	}

	app, _ := newApp(t)
	channelStack := awscdk.NewStack(app, jsii.String("Channel"), nil)
	ch := erasure.NewErasureChannel(channelStack, jsii.String("ErasureChannel"), nil)
	for i, tc := range cases {
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Case%02d", i)), nil)
		p := tc.props(stack, ch)
		p.Name = tc.name
		erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &p)
	}
	// A bad name is reported under its own path.
	badName := awscdk.NewStack(app, jsii.String("BadName"), nil)
	erasure.NewErasureSubscriber(badName, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
		Name: "Space_Store", Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler(),
	})

	err := synth(app)
	if err == nil {
		t.Fatal("synth passed with every cap broken")
	}
	report := err.Error()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			about := linesAbout(report, tc.name)
			for _, w := range tc.want {
				// Each line names the construct path, the rule, the property, the problem type, the value and the cap.
				want := regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("[Case%02d/ErasureSubscriber] ", i)) + `EC\d{3} ` +
					regexp.QuoteMeta(fmt.Sprintf("ErasureSubscriber[%s].%s", tc.name, w)))
				if !want.MatchString(about) {
					t.Errorf("synth report has no %s:\n%s", want, about)
				}
			}
			if got := strings.Count(about, "\n"); got != len(tc.want) {
				t.Errorf("%d lines for %s, want %d together:\n%s", got, tc.name, len(tc.want), about)
			}
		})
	}
	if !strings.Contains(report, "ErasureSubscriber[Space_Store].name: Invalid") {
		t.Errorf("bad name not reported:\n%s", linesAbout(report, "Space_Store"))
	}
	if strings.Contains(report, "ErasureSubscriber[default-ok]") {
		t.Error("a valid subscriber was reported")
	}
}

// TestSafeDefaultsSynth: a store that sets nothing synthesizes with the caps.
func TestSafeDefaultsSynth(t *testing.T) {
	app, dir := newApp(t)
	stack := awscdk.NewStack(app, jsii.String("Defaults"), nil)
	ch := erasure.NewErasureChannel(stack, jsii.String("ErasureChannel"), nil)
	sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
		Name: "default-ok", Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler(),
	})
	sub.AddNotApplicableAlarm("NotApplicableAlarm", 1)
	if err := synth(app); err != nil {
		t.Fatal(err)
	}
	c := contract.Channel()
	tpl := readTemplates(t, dir)["Defaults"]
	_, fn := tpl.one(t, "AWS::Lambda::Function")
	if num(fn["Timeout"]) != c.HandlerTimeoutCapSeconds {
		t.Errorf("default handler timeout %v", fn["Timeout"])
	}
	alarms := fmt.Sprint(tpl.resources("AWS::CloudWatch::Alarm"))
	if !strings.Contains(alarms, contract.MetricNotApplicable) || !strings.Contains(alarms, contract.MetricNamespace) {
		t.Error("no ErasureNotApplicable alarm")
	}
	if sub.Settings.VisibilityTimeoutSeconds != c.VisibilityTimeoutCapSeconds {
		t.Errorf("settings %+v", sub.Settings)
	}
}

// TestShorterHandlerGetsFittingBatchTimeout: a store with a 20 s handler and
// no batch timeout gets one that fits inside it.
func TestShorterHandlerGetsFittingBatchTimeout(t *testing.T) {
	app, dir := newApp(t)
	stack := awscdk.NewStack(app, jsii.String("Short"), nil)
	ch := erasure.NewErasureChannel(stack, jsii.String("ErasureChannel"), nil)
	erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
		Name: "short", Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler(), HandlerTimeout: secs(20),
	})
	if err := synth(app); err != nil {
		t.Fatal(err)
	}
	tpl := readTemplates(t, dir)["Short"]
	_, fn := tpl.one(t, "AWS::Lambda::Function")
	env := fn["Environment"].(map[string]interface{})["Variables"].(map[string]interface{})
	if env[contract.EnvBatchTimeoutSeconds] != "20" {
		t.Errorf("batch timeout %v, want 20", env[contract.EnvBatchTimeoutSeconds])
	}
	found := false
	for id, q := range tpl.resources("AWS::SQS::Queue") {
		if strings.HasPrefix(id, "ErasureSubscriberQueue") {
			found = true
			if v := num(q["Properties"].(map[string]interface{})["VisibilityTimeout"]); v != 120 {
				t.Errorf("visibility %d, want 6 x 20", v)
			}
		}
	}
	if !found {
		t.Fatal("no subscriber queue")
	}
}

func linesAbout(report, name string) string {
	return linesMentioning(report, "ErasureSubscriber["+name+"]")
}

// linesMentioning returns the report's lines that contain marker, each ending in a newline.
func linesMentioning(report, marker string) string {
	var b strings.Builder
	for _, l := range strings.Split(report, "\n") {
		if strings.Contains(l, marker) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
