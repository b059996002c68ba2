// Package local runs an erasure channel on the SNS/SQS emulator: the same
// topology the constructs synthesize (raw delivery, redrive with N, the
// store's visibility and retention, all from a timing.SubscriberSettings), and a poller that
// plays Lambda's SQS event source mapping for a store handler in process.
// Integration tests and erasurectl's local channel use it.
package local

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// Clients are SDK clients pointed at an endpoint with static test credentials.
type Clients struct {
	SQS *sqs.Client
	SNS *sns.Client
}

// NewClients points SQS and SNS clients at endpoint (the emulator).
func NewClients(endpoint, region string) Clients {
	return NewClientsWith(endpoint, region, credentials.NewStaticCredentialsProvider("local", "local", ""))
}

// NewClientsWith are clients of endpoint that sign with creds.
func NewClientsWith(endpoint, region string, creds aws.CredentialsProvider) Clients {
	return Clients{
		SQS: sqs.New(sqs.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds}),
		SNS: sns.New(sns.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds}),
	}
}

// StoreSpec is one store: its subscriber name and timing settings (the same
// description the app-wide check reads out of templates).
type StoreSpec = erasurecheck.StoreSpec

// Spec describes a channel. Prefix keeps several channels apart on one emulator.
type Spec struct {
	Prefix    string
	Constants contract.Constants
	Stores    []StoreSpec
}

// Queue is one queue's addresses.
type Queue struct {
	URL string
	ARN string
}

// StoreQueues are one store's queue and dead-letter queue on the local channel.
type StoreQueues struct {
	Spec            StoreSpec
	Queue           Queue
	DeadLetterQueue Queue
}

// HandlerEnvironment is what ErasureSubscriber would set in the store's
// Lambda environment, for a handler run in process against this store.
func (s *StoreQueues) HandlerEnvironment(responseQueueURL string) contract.HandlerEnvironment {
	return contract.HandlerEnvironment{
		PassTwoDelay:     time.Duration(s.Spec.Settings.PassTwoDelaySeconds) * time.Second,
		BatchTimeout:     time.Duration(s.Spec.Settings.BatchTimeoutSeconds) * time.Second,
		Subscriber:       s.Spec.Name,
		ResponseQueueURL: responseQueueURL,
		QueueURL:         s.Queue.URL,
	}
}

// Channel is a created channel.
type Channel struct {
	Clients
	TopicARN                string
	ResponseQueue           Queue
	ResponseDeadLetterQueue Queue
	Stores                  map[string]*StoreQueues

	gate   *Gate
	probe  *Gate // decides without forwarding (Probe)
	region string
	reader *publisher.Reader // the response reader Serve runs
}

// Guard routes every component's calls through gate, each as its own
// principal: the store handlers (and the event sources that poll for them)
// as handler/<store>, the publisher and the response reader as the account
// service. A call the deployed policies would deny then fails here too, and
// the response reader counts an answer only from the handler of the store it
// names (Roster). The topic, the response queue and each store queue are
// named to the gate as the access matrix names them.
func (ch *Channel) Guard(g *Gate, region string) {
	ch.gate, ch.region = g, region
	ch.nameTo(g)
}

// nameTo names the channel's resources to g as the access matrix names them.
func (ch *Channel) nameTo(g *Gate) {
	g.Name(ch.TopicARN, "topic")
	g.Name(ch.ResponseQueue.URL, "response-queue")
	g.Name(ch.ResponseDeadLetterQueue.URL, "response-dlq")
	for name, s := range ch.Stores {
		g.Name(s.Queue.URL, "queue/"+name)
		g.Name(s.DeadLetterQueue.URL, "dlq/"+name)
		g.NameEndpoint(s.Queue.ARN, "queue/"+name)
	}
}

// As returns clients that call as principal (see Guard); unguarded, the
// channel's own clients.
func (ch *Channel) As(principal string) Clients {
	if ch.gate == nil {
		return ch.Clients
	}
	return ch.gate.Clients(principal, ch.region)
}

// Probe returns clients that call as principal through a second gate that
// decides with d and forwards nothing (its upstream refuses every
// connection): to ask what d would allow of a call without making it.
// Its clients do not retry.
func (ch *Channel) Probe(d Decider, principal string) Clients {
	if ch.probe == nil {
		g, err := StartGate("http://127.0.0.1:1", d)
		if err != nil {
			panic(err) // a listener on 127.0.0.1 that cannot be opened
		}
		ch.nameTo(g)
		ch.probe = g
	}
	ch.probe.Use(d)
	c := ch.probe.Credentials(principal, ch.region)
	creds := credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")
	return Clients{
		SQS: sqs.New(sqs.Options{Region: ch.region, BaseEndpoint: aws.String(ch.probe.URL), Credentials: creds, RetryMaxAttempts: 1}),
		SNS: sns.New(sns.Options{Region: ch.region, BaseEndpoint: aws.String(ch.probe.URL), Credentials: creds, RetryMaxAttempts: 1}),
	}
}

// HandlerPrincipal is the principal a store's handler calls as.
func HandlerPrincipal(store string) string { return "handler/" + store }

// Roster is the response reader's roster when the channel is guarded, nil
// otherwise.
func (ch *Channel) Roster() publisher.Roster {
	if ch.gate == nil {
		return nil
	}
	names := make([]string, 0, len(ch.Stores))
	for name := range ch.Stores {
		names = append(names, name)
	}
	return Roster(names)
}

// Create builds the channel's topic, response queue and every store's queues
// and subscription.
func Create(ctx context.Context, cl Clients, spec Spec) (*Channel, error) {
	c := spec.Constants
	ch := &Channel{Clients: cl, Stores: map[string]*StoreQueues{}}
	topic, err := cl.SNS.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(spec.Prefix + "erasure-topic")})
	if err != nil {
		return nil, fmt.Errorf("local: create topic: %w", err)
	}
	ch.TopicARN = aws.ToString(topic.TopicArn)
	retention := strconv.Itoa(c.QueueRetentionSeconds)
	if ch.ResponseDeadLetterQueue, err = createQueue(ctx, cl.SQS, spec.Prefix+"erasure-responses-dlq", map[string]string{
		"MessageRetentionPeriod": retention,
	}); err != nil {
		return nil, err
	}
	if ch.ResponseQueue, err = createQueue(ctx, cl.SQS, spec.Prefix+"erasure-responses", map[string]string{
		"MessageRetentionPeriod": retention,
		"RedrivePolicy":          redrive(ch.ResponseDeadLetterQueue.ARN, c.MaxReceiveCount),
	}); err != nil {
		return nil, err
	}
	for _, s := range spec.Stores {
		st := &StoreQueues{Spec: s}
		if st.DeadLetterQueue, err = createQueue(ctx, cl.SQS, spec.Prefix+s.Name+"-erasure-dlq", map[string]string{
			"MessageRetentionPeriod": strconv.Itoa(s.Settings.RetentionSeconds),
		}); err != nil {
			return nil, err
		}
		if st.Queue, err = createQueue(ctx, cl.SQS, spec.Prefix+s.Name+"-erasure", map[string]string{
			"MessageRetentionPeriod": strconv.Itoa(s.Settings.RetentionSeconds),
			"VisibilityTimeout":      strconv.Itoa(s.Settings.VisibilityTimeoutSeconds),
			"RedrivePolicy":          redrive(st.DeadLetterQueue.ARN, s.Settings.MaxReceiveCount),
		}); err != nil {
			return nil, err
		}
		if _, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{
			TopicArn:   aws.String(ch.TopicARN),
			Protocol:   aws.String("sqs"),
			Endpoint:   aws.String(st.Queue.ARN),
			Attributes: map[string]string{"RawMessageDelivery": "true"},
		}); err != nil {
			return nil, fmt.Errorf("local: subscribe %s: %w", s.Name, err)
		}
		ch.Stores[s.Name] = st
	}
	return ch, nil
}

func redrive(dlqARN string, maxReceive int) string {
	b, _ := json.Marshal(map[string]any{"deadLetterTargetArn": dlqARN, "maxReceiveCount": maxReceive})
	return string(b)
}

func createQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (Queue, error) {
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return Queue{}, fmt.Errorf("local: create queue %s: %w", name, err)
	}
	q := Queue{URL: aws.ToString(out.QueueUrl)}
	a, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return Queue{}, fmt.Errorf("local: queue arn %s: %w", name, err)
	}
	q.ARN = a.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	return q, nil
}

// CountMessages returns a queue's visible, in-flight and delayed counts.
func CountMessages(ctx context.Context, client *sqs.Client, url string) (visible, inFlight, delayed int, err error) {
	a, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{
			sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed,
		},
	})
	if err != nil {
		return 0, 0, 0, err
	}
	visible, _ = strconv.Atoi(a.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ = strconv.Atoi(a.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	delayed, _ = strconv.Atoi(a.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed)])
	return visible, inFlight, delayed, nil
}
