// Package deployed reads an erasure channel as it is deployed, through the
// AWS APIs and never through templates: the channel stack's outputs, the
// topic's subscriptions, and for each store queue the event source mapping,
// function configuration and execution role that serve it. It also plays
// Lambda for a deployed store (RunHandler) where no Lambda service runs the
// function, as on the offline engine.
package deployed

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Output names of the channel stack that Discover reads (stacks.Output*).
const (
	OutputTopicArn         = "ErasureTopicArn"
	OutputResponseQueueURL = "ErasureResponseQueueUrl"
)

// Account holds the clients of one AWS account.
type Account struct {
	CloudFormation *cloudformation.Client
	SNS            *sns.Client
	SQS            *sqs.Client
	Lambda         *lambda.Client
	IAM            *iam.Client
	STS            *sts.Client
	Config         aws.Config
}

// NewAccount builds an account's clients from a configuration.
func NewAccount(cfg aws.Config) *Account {
	return &Account{
		CloudFormation: cloudformation.NewFromConfig(cfg),
		SNS:            sns.NewFromConfig(cfg),
		SQS:            sqs.NewFromConfig(cfg),
		Lambda:         lambda.NewFromConfig(cfg),
		IAM:            iam.NewFromConfig(cfg),
		STS:            sts.NewFromConfig(cfg),
		Config:         cfg,
	}
}

// Channel is the deployed channel: its topic and response queue.
type Channel struct {
	Stack            string
	TopicArn         string
	ResponseQueueURL string
}

// Store is one deployed store, as the topic's subscription, the queue's event
// source mapping and the mapped function show it.
type Store struct {
	Name          string // from the queue's name, erasure-requests-<name>
	Account       string
	QueueArn      string
	QueueURL      string
	Subscription  string
	RawDelivery   bool
	FilterPolicy  bool
	Mapping       string // the event source mapping's UUID
	MappingState  string
	BatchSize     int32
	BatchFailures bool // ReportBatchItemFailures
	Function      string
	FunctionArn   string
	TimeoutSecs   int32
	// VisibilitySecs is the queue's visibility timeout.
	VisibilitySecs int
	Environment    map[string]string
	RoleArn        string
	RoleID         string
	// Readable is false when the store's account was not readable (no
	// credentials for it): only the subscription is known.
	Readable bool
	// Problems are the deployed wiring's faults, each a line that names the
	// setting and never a value.
	Problems []string
}

// Sender is the SQS SenderId the store's handler sends with.
func (s Store) Sender() string { return contract.HandlerSenderID(s.RoleID, s.Function) }

// Accounts resolves an account id to its clients: the caller's own, or one
// reached by assuming a role. ok is false when no credentials for it exist.
type Accounts func(ctx context.Context, account string) (a *Account, ok bool, err error)

// Discover reads the channel stack's outputs and every store subscribed to its
// topic.
func Discover(ctx context.Context, home *Account, stack string, accounts Accounts) (Channel, []Store, error) {
	ch := Channel{Stack: stack}
	out, err := home.CloudFormation.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stack)})
	if err != nil {
		return ch, nil, fmt.Errorf("deployed: the channel stack %s: %w", stack, err)
	}
	if len(out.Stacks) != 1 {
		return ch, nil, fmt.Errorf("deployed: the channel stack %s is not deployed", stack)
	}
	for _, o := range out.Stacks[0].Outputs {
		switch aws.ToString(o.OutputKey) {
		case OutputTopicArn:
			ch.TopicArn = aws.ToString(o.OutputValue)
		case OutputResponseQueueURL:
			ch.ResponseQueueURL = aws.ToString(o.OutputValue)
		}
	}
	if ch.TopicArn == "" || ch.ResponseQueueURL == "" {
		return ch, nil, fmt.Errorf("deployed: the channel stack %s has no %s or %s output", stack, OutputTopicArn, OutputResponseQueueURL)
	}
	var stores []Store
	var next *string
	for {
		subs, err := home.SNS.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(ch.TopicArn), NextToken: next})
		if err != nil {
			return ch, nil, fmt.Errorf("deployed: the topic's subscriptions: %w", err)
		}
		for _, sub := range subs.Subscriptions {
			if aws.ToString(sub.Protocol) != "sqs" {
				return ch, nil, fmt.Errorf("deployed: the topic has a %s subscription: only store queues may subscribe", aws.ToString(sub.Protocol))
			}
			st, err := readStore(ctx, home, accounts, aws.ToString(sub.SubscriptionArn), aws.ToString(sub.Endpoint))
			if err != nil {
				return ch, nil, err
			}
			stores = append(stores, st)
		}
		if next = subs.NextToken; next == nil {
			break
		}
	}
	sort.Slice(stores, func(i, j int) bool { return stores[i].Name < stores[j].Name })
	for i := range stores {
		stores[i].judge(ch)
	}
	return ch, stores, nil
}

func readStore(ctx context.Context, home *Account, accounts Accounts, subArn, queueArn string) (Store, error) {
	parts := strings.Split(queueArn, ":")
	if len(parts) != 6 {
		return Store{}, errors.New("deployed: a subscription's endpoint is not a queue ARN")
	}
	st := Store{Account: parts[4], QueueArn: queueArn, Subscription: subArn}
	st.Name = strings.TrimPrefix(parts[5], contract.QueueName(""))
	named := contract.IsSubscriberName(st.Name) && contract.QueueName(st.Name) == parts[5]
	defer func() { // a long name keeps a digest: the function's subscriber names the store
		if v := st.Environment[contract.EnvSubscriber]; contract.IsSubscriberName(v) && contract.QueueName(v) == parts[5] {
			st.Name, named = v, true
		}
		if !named {
			st.Name = parts[5]
			st.Problems = append(st.Problems, "queue: its name is not "+contract.QueueName("<store>")+" of any store")
		}
	}()
	attrs, err := home.SNS.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(subArn)})
	if err != nil {
		return st, fmt.Errorf("deployed: subscription of %s: %w", st.Name, err)
	}
	st.RawDelivery = attrs.Attributes["RawMessageDelivery"] == "true"
	st.FilterPolicy = attrs.Attributes["FilterPolicy"] != ""
	acct, ok, err := accounts(ctx, st.Account)
	if err != nil {
		return st, err
	}
	if !ok {
		st.Problems = append(st.Problems, "account "+st.Account+": not readable with these credentials (give --account-role)")
		return st, nil
	}
	st.Readable = true
	q, err := acct.SQS.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(parts[5]), QueueOwnerAWSAccountId: aws.String(st.Account)})
	if err != nil {
		return st, fmt.Errorf("deployed: queue of %s: %w", st.Name, err)
	}
	st.QueueURL = aws.ToString(q.QueueUrl)
	qa, err := acct.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameVisibilityTimeout}})
	if err != nil {
		return st, fmt.Errorf("deployed: queue attributes of %s: %w", st.Name, err)
	}
	st.VisibilitySecs, _ = strconv.Atoi(qa.Attributes[string(sqstypes.QueueAttributeNameVisibilityTimeout)])
	maps, err := acct.Lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queueArn)})
	if err != nil {
		return st, fmt.Errorf("deployed: event source mappings of %s: %w", st.Name, err)
	}
	var found []string
	for _, m := range maps.EventSourceMappings {
		if aws.ToString(m.EventSourceArn) != queueArn { // an engine that ignores the filter
			continue
		}
		found = append(found, aws.ToString(m.UUID))
		if st.Mapping != "" {
			continue
		}
		st.Mapping, st.MappingState, st.FunctionArn = aws.ToString(m.UUID), aws.ToString(m.State), aws.ToString(m.FunctionArn)
		st.BatchSize = aws.ToInt32(m.BatchSize)
		for _, t := range m.FunctionResponseTypes {
			if t == "ReportBatchItemFailures" {
				st.BatchFailures = true
			}
		}
	}
	switch {
	case len(found) == 0:
		st.Problems = append(st.Problems, "queue: no event source mapping reads it")
		return st, nil
	case len(found) > 1:
		st.Problems = append(st.Problems, fmt.Sprintf("queue: %d event source mappings read it (one function per store queue)", len(found)))
	}
	fn, err := readFunction(ctx, acct, st.FunctionArn)
	if err != nil {
		return st, fmt.Errorf("deployed: store %s: %w", st.Name, err)
	}
	st.Function, st.TimeoutSecs, st.RoleArn, st.Environment, st.RoleID = fn.Function, fn.TimeoutSecs, fn.RoleArn, fn.Environment, fn.RoleID
	return st, nil
}

// visibilityPerTimeout is AWS's guidance for an SQS event source, which the
// seed's V = 6 × T follows: a visibility timeout of at least six times the
// function's timeout.
const visibilityPerTimeout = 6

// judge records what in the deployed wiring would keep the store from
// answering, as the handler and SQS would meet it.
func (st *Store) judge(ch Channel) {
	if !st.RawDelivery {
		st.Problems = append(st.Problems, "subscription: RawMessageDelivery is off (the handler would parse SNS's envelope as a request)")
	}
	if st.FilterPolicy {
		st.Problems = append(st.Problems, "subscription: a filter policy drops requests unanswered")
	}
	if !st.Readable || st.Mapping == "" {
		return
	}
	if st.MappingState != "Enabled" && st.MappingState != "Enabling" {
		st.Problems = append(st.Problems, "event source mapping: "+st.MappingState)
	}
	if !st.BatchFailures {
		st.Problems = append(st.Problems, "event source mapping: ReportBatchItemFailures is off")
	}
	env := st.Environment
	if _, err := contract.LoadHandlerEnvironment(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, contract.Channel()); err != nil {
		var ee *contract.EnvError
		if errors.As(err, &ee) {
			st.Problems = append(st.Problems, "function environment: "+ee.Error())
		} else {
			st.Problems = append(st.Problems, "function environment: the handler would refuse it at start-up")
		}
	}
	if v, ok := env[contract.EnvSubscriber]; ok && v != st.Name {
		st.Problems = append(st.Problems, contract.EnvSubscriber+": not the store its queue is named for")
	}
	if v, ok := env[contract.EnvQueueURL]; ok && !SameQueue(v, st.QueueURL) {
		st.Problems = append(st.Problems, contract.EnvQueueURL+": not the queue its event source mapping reads")
	}
	if v, ok := env[contract.EnvResponseQueueURL]; ok && !SameQueue(v, ch.ResponseQueueURL) {
		st.Problems = append(st.Problems, contract.EnvResponseQueueURL+": not the channel's response queue")
	}
	if v, ok := env[contract.EnvHandlerRoleID]; ok && v != st.RoleID {
		st.Problems = append(st.Problems, contract.EnvHandlerRoleID+": not the function's execution role")
	}
	c := contract.Channel()
	if st.TimeoutSecs > int32(c.HandlerTimeoutCapSeconds) {
		st.Problems = append(st.Problems, "function timeout: above the channel's cap T")
	}
	if st.VisibilitySecs < visibilityPerTimeout*int(st.TimeoutSecs) {
		st.Problems = append(st.Problems, "queue visibility timeout: below 6 × the function's timeout (a request could be received again while its handler runs)")
	}
	if st.VisibilitySecs > c.VisibilityTimeoutCapSeconds {
		st.Problems = append(st.Problems, "queue visibility timeout: above the channel's cap V")
	}
}

// SameQueue reports whether two SQS queue URLs name one queue: the same
// account and name, whichever endpoint form (sqs.<region>.amazonaws.com, the
// legacy <region>.queue.amazonaws.com, a local endpoint) each was written in.
func SameQueue(a, b string) bool {
	pa, pb := queuePath(a), queuePath(b)
	return pa != "" && pa == pb
}

func queuePath(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	parts := strings.Split(strings.Trim(p.Path, "/"), "/")
	if len(parts) != 2 || len(parts[0]) != 12 || parts[1] == "" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}
