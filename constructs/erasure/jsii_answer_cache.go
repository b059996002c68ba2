package erasure

import (
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// Every jsii call is a round trip to the Node kernel, and an app with a
// hundred subscribers asks the same shared topic and response queue the same
// questions a hundred times. These memos answer immutable questions once per
// object: a Duration of n seconds, a topic's or queue's FIFO flag, a queue's
// key and URL token.
var memo struct {
	sync.Mutex
	durations map[durationKey]awscdk.Duration
	fifo      map[any]bool
	key       map[awssqs.IQueue]awskms.IKey
	url       map[awssqs.IQueue]*string
	restricts map[awssns.ITopic]bool
}

// restrictSqsDecryptionFlag makes CDK's own SqsSubscription scope SNS's
// statement on the queue's key to the topic (aws:SourceArn).
const restrictSqsDecryptionFlag = "@aws-cdk/aws-sns-subscriptions:restrictSqsDescryption"

// restrictsSqsDecryption says whether the app of topic sets that flag, asked
// once per topic.
func restrictsSqsDecryption(t awssns.ITopic) bool {
	memo.Lock()
	defer memo.Unlock()
	if memo.restricts == nil {
		memo.restricts = map[awssns.ITopic]bool{}
	}
	r, ok := memo.restricts[t]
	if !ok {
		r = *awscdk.FeatureFlags_Of(t).IsEnabled(jsii.String(restrictSqsDecryptionFlag))
		memo.restricts[t] = r
	}
	return r
}

type durationKey struct {
	n       int
	minutes bool
}

func seconds(n int) awscdk.Duration { return duration(durationKey{n: n}) }

func minutes(n int) awscdk.Duration { return duration(durationKey{n: n, minutes: true}) }

func duration(k durationKey) awscdk.Duration {
	memo.Lock()
	defer memo.Unlock()
	if memo.durations == nil {
		memo.durations = map[durationKey]awscdk.Duration{}
	}
	d, ok := memo.durations[k]
	if !ok {
		if k.minutes {
			d = awscdk.Duration_Minutes(jsii.Number(float64(k.n)))
		} else {
			d = awscdk.Duration_Seconds(jsii.Number(float64(k.n)))
		}
		memo.durations[k] = d
	}
	return d
}

func topicIsFIFO(t awssns.ITopic) bool {
	return fifoOf(t, func() *bool { return t.Fifo() })
}

func queueIsFIFO(q awssqs.IQueue) bool {
	return fifoOf(q, func() *bool { return q.Fifo() })
}

func fifoOf(obj any, ask func() *bool) bool {
	memo.Lock()
	defer memo.Unlock()
	if memo.fifo == nil {
		memo.fifo = map[any]bool{}
	}
	f, ok := memo.fifo[obj]
	if !ok {
		b := ask()
		f = b != nil && *b
		memo.fifo[obj] = f
	}
	return f
}

func queueKey(q awssqs.IQueue) awskms.IKey {
	memo.Lock()
	defer memo.Unlock()
	if memo.key == nil {
		memo.key = map[awssqs.IQueue]awskms.IKey{}
	}
	k, ok := memo.key[q]
	if !ok {
		k = q.EncryptionMasterKey()
		memo.key[q] = k
	}
	return k
}

func queueURL(q awssqs.IQueue) *string {
	memo.Lock()
	defer memo.Unlock()
	if memo.url == nil {
		memo.url = map[awssqs.IQueue]*string{}
	}
	u, ok := memo.url[q]
	if !ok {
		u = q.QueueUrl()
		memo.url[q] = u
	}
	return u
}
