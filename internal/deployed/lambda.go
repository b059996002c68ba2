package deployed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Handler plays Lambda for one deployed store: its handler binary runs under
// the Lambda Runtime Interface Emulator with the deployed function's
// environment and timeout and the credentials of its execution role (assumed
// with the function's name as the session, as Lambda does), and a poller plays
// the event source mapping with its deployed batch size and batch-failure
// reporting.
type Handler struct {
	Store  Store
	Binary string // the handler, built for this host
	RIE    string // the aws-lambda-rie binary
	// Endpoint is AWS_ENDPOINT_URL for the handler (the offline engine); empty
	// against AWS.
	Endpoint string
	Region   string
	// PassTwoDelay overrides ERASURE_PASS_TWO_DELAY_SECONDS when set (a
	// speed-up for the offline round trip; nil keeps the deployed value).
	PassTwoDelay *int
	// Log receives the emulator's and the handler's output (never message
	// bodies: the handler logs none).
	Log io.Writer
	// Scheduled is a function no queue feeds (a schedule invokes it): no
	// poller runs, and Running.Invoke calls it.
	Scheduled bool
}

// Stats count what the poller did.
type Stats struct {
	Invocations, FunctionErrors, Deleted, Retried int
	// PollErrors counts receives and deletes the queue refused: the poller
	// waits a second and goes on, as Lambda's event source mapping retries.
	PollErrors int
}

// Running is a started handler.
type Running struct {
	invoke string
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	stats  Stats
	err    error
}

// Stats reports the poller's counts so far.
func (r *Running) Stats() Stats { r.mu.Lock(); defer r.mu.Unlock(); return r.stats }

// Stop ends the poller and the emulator, and reports the poller's error.
func (r *Running) Stop() error {
	r.cancel()
	<-r.done
	if r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
	}
	return r.err
}

// Start assumes the store's execution role, starts the emulator on two free
// loopback ports and the poller on the store's queue.
func (h Handler) Start(ctx context.Context, acct *Account) (*Running, error) {
	st := h.Store
	if st.Function == "" || st.RoleArn == "" || (st.QueueURL == "" && !h.Scheduled) {
		return nil, fmt.Errorf("deployed: store %s has no function, role or queue to run", st.Name)
	}
	creds, err := acct.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(st.RoleArn), RoleSessionName: aws.String(st.Function)})
	if err != nil {
		return nil, fmt.Errorf("deployed: assuming the execution role of %s: %w", st.Name, err)
	}
	c := creds.Credentials
	cfg := acct.Config.Copy()
	cfg.Credentials = credentials.NewStaticCredentialsProvider(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
	queue := sqs.NewFromConfig(cfg)

	invokeAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	apiAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for k, v := range st.Environment {
		env[k] = v
	}
	if h.PassTwoDelay != nil {
		env[contract.EnvPassTwoDelaySeconds] = strconv.Itoa(*h.PassTwoDelay)
	}
	env["AWS_LAMBDA_FUNCTION_NAME"] = st.Function
	env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = strconv.Itoa(int(st.TimeoutSecs))
	env["AWS_REGION"], env["AWS_DEFAULT_REGION"] = h.Region, h.Region
	env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_SESSION_TOKEN"] = aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)
	if h.Endpoint != "" {
		env["AWS_ENDPOINT_URL"] = h.Endpoint
	}
	env["PATH"] = "/usr/bin:/bin"
	env["HOME"] = os.TempDir()
	cmd := exec.Command(h.RIE, "--runtime-interface-emulator-address", invokeAddr, "--runtime-api-address", apiAddr, h.Binary)
	cmd.Env = nil
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if h.Log != nil {
		cmd.Stdout, cmd.Stderr = h.Log, h.Log
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("deployed: starting the Lambda Runtime Interface Emulator: %w", err)
	}
	pctx, cancel := context.WithCancel(ctx)
	r := &Running{cmd: cmd, cancel: cancel, done: make(chan struct{})}
	if err := waitListening(pctx, invokeAddr); err != nil {
		_ = r.Stop()
		return nil, err
	}
	r.invoke = "http://" + invokeAddr + "/2015-03-31/functions/function/invocations"
	if h.Scheduled {
		close(r.done)
		return r, nil
	}
	go func() {
		defer close(r.done)
		r.err = r.poll(pctx, queue, st, r.invoke, h.Region)
	}()
	return r, nil
}

// Invoke calls the function once with payload, as a schedule does, and
// returns its response; a function error is an error.
func (r *Running) Invoke(ctx context.Context, payload []byte, timeout time.Duration) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.invoke, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 6<<20))
	if err != nil {
		return nil, err
	}
	var fe struct {
		ErrorType string `json:"errorType"`
	}
	if resp.StatusCode != http.StatusOK || (json.Unmarshal(out, &fe) == nil && fe.ErrorType != "") {
		return nil, errors.New("deployed: the function failed")
	}
	return out, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("deployed: no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitListening(ctx context.Context, addr string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("deployed: the Lambda Runtime Interface Emulator did not start listening")
}

// poll plays an SQS event source mapping: receive up to the batch size, invoke
// once per batch, and delete every record the function did not report failed;
// a function error leaves the whole batch to its visibility timeout.
func (r *Running) poll(ctx context.Context, q *sqs.Client, st Store, invokeURL, region string) error {
	batch := st.BatchSize
	if batch <= 0 {
		batch = 10
	}
	client := &http.Client{Timeout: time.Duration(st.TimeoutSecs+5) * time.Second}
	for ctx.Err() == nil {
		out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(st.QueueURL), MaxNumberOfMessages: batch, WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.pollFailed(ctx)
			continue
		}
		if len(out.Messages) == 0 {
			continue
		}
		event := events.SQSEvent{}
		for _, m := range out.Messages {
			event.Records = append(event.Records, record(m, st.QueueArn, region))
		}
		body, _ := json.Marshal(event)
		failed, ferr := invoke(ctx, client, invokeURL, body)
		r.mu.Lock()
		r.stats.Invocations++
		r.mu.Unlock()
		if ferr != nil {
			r.mu.Lock()
			r.stats.FunctionErrors++
			r.stats.Retried += len(out.Messages)
			r.mu.Unlock()
			continue
		}
		for _, m := range out.Messages {
			if failed[aws.ToString(m.MessageId)] && st.BatchFailures {
				r.mu.Lock()
				r.stats.Retried++
				r.mu.Unlock()
				continue
			}
			if _, err := q.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(st.QueueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				r.pollFailed(ctx) // the record comes back after its visibility timeout
				continue
			}
			r.mu.Lock()
			r.stats.Deleted++
			r.mu.Unlock()
		}
	}
	return nil
}

// pollFailed counts a refused receive or delete and waits a second: a busy
// engine (a hundred pollers on one emulator) must not stop a poller for good.
func (r *Running) pollFailed(ctx context.Context) {
	r.mu.Lock()
	r.stats.PollErrors++
	r.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}

func record(m sqstypes.Message, queueArn, region string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
		Md5OfBody: aws.ToString(m.MD5OfBody), Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
		Attributes: m.Attributes, MessageAttributes: map[string]events.SQSMessageAttribute{},
		EventSourceARN: queueArn, EventSource: "aws:sqs", AWSRegion: region,
	}
	for k, v := range m.MessageAttributes {
		rec.MessageAttributes[k] = events.SQSMessageAttribute{StringValue: v.StringValue, BinaryValue: v.BinaryValue,
			StringListValues: v.StringListValues, BinaryListValues: v.BinaryListValues, DataType: aws.ToString(v.DataType)}
	}
	return rec
}

// invoke posts one event to the emulator and returns the records the function
// reported failed; an error is a function error (Lambda retries the batch).
func invoke(ctx context.Context, client *http.Client, url string, body []byte) (map[string]bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 6<<20)) // Lambda's synchronous response limit
	if err != nil {
		return nil, err
	}
	var res struct {
		ErrorType         string `json:"errorType"`
		ErrorMessage      string `json:"errorMessage"`
		BatchItemFailures []struct {
			ItemIdentifier string `json:"itemIdentifier"`
		} `json:"batchItemFailures"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &res) != nil || res.ErrorType != "" || res.ErrorMessage != "" {
		return nil, errors.New("deployed: the function failed")
	}
	failed := map[string]bool{}
	for _, f := range res.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	return failed, nil
}
