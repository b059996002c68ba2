package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

type watchCmd struct {
	awsFlags
	QueueURL  string        `name:"queue-url" required:"" help:"The response queue."`
	RequestID string        `name:"request-id" help:"Wait for this round (with --send-no for ERASE and REFILE)."`
	SendNo    int           `name:"send-no" help:"The broadcast of --request-id (0 for CHECK and CLASSIFY)."`
	Expect    []string      `help:"Subscribers expected to answer --request-id; exit 0 once all have."`
	Timeout   time.Duration `default:"0s" help:"Stop after this long (0: until Ctrl-C, or until --expect is met)."`
}

type answerLine struct {
	Round      string `json:"round"`
	Subscriber string `json:"subscriber"`
	Type       string `json:"type"`
	Answer     string `json:"answer"`
}

func (w *watchCmd) Run(g *globals) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if w.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.Timeout)
		defer cancel()
	}
	if len(w.Expect) > 0 && w.RequestID == "" {
		return fail(exitUsage, "--expect needs --request-id")
	}
	cl, err := w.clients(ctx)
	if err != nil {
		return err
	}
	collector := publisher.NewCollector()
	reader := publisher.NewReader(&printingReceiver{ReceiveAPI: cl.SQS, g: g, json: g.JSON}, w.QueueURL, collector, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	key := publisher.RoundKey{RequestID: w.RequestID, SendNo: w.SendNo}
	for ctx.Err() == nil {
		if _, err := reader.Poll(ctx, time.Second); err != nil && ctx.Err() == nil {
			return fail(exitEnvironment, "receive from the response queue failed")
		}
		if len(w.Expect) > 0 {
			st := collector.Status(key, w.Expect)
			if st.Complete() {
				if !g.JSON {
					fmt.Fprintf(g.Stdout, "every expected subscriber answered round %s (NOT_APPLICABLE: %s)\n", roundLabel(w.RequestID, w.SendNo), strings.Join(st.NotApplicable, ", "))
				}
				return nil
			}
		}
	}
	if len(w.Expect) > 0 {
		st := collector.Status(key, w.Expect)
		return fail(exitCheckFailed, "no answer from: %s", strings.Join(st.Missing, ", "))
	}
	return nil
}

// printingReceiver prints every valid answer it hands the reader.
type printingReceiver struct {
	publisher.ReceiveAPI
	g    *globals
	json bool
}

func (p *printingReceiver) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := p.ReceiveAPI.ReceiveMessage(ctx, in, optFns...)
	if err != nil {
		return out, err
	}
	for _, m := range out.Messages {
		if m.Body == nil {
			continue
		}
		r, err := contract.ParseResponse([]byte(*m.Body))
		if err != nil {
			continue
		}
		line := answerLine{Round: roundLabel(r.RequestID, r.SendNo), Subscriber: r.Subscriber, Type: string(r.Type), Answer: string(r.Outcome) + string(r.Answer)}
		if p.json {
			b, _ := json.Marshal(line)
			fmt.Fprintln(p.g.Stdout, string(b))
		} else {
			fmt.Fprintf(p.g.Stdout, "round %-12s %-12s %-20s %s\n", line.Round, line.Subscriber, line.Type, line.Answer)
		}
	}
	return out, nil
}
