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
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/bounded"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

type watchCmd struct {
	awsFlags
	QueueURL  string        `name:"queue-url" required:"" help:"The response queue."`
	RequestID string        `name:"request-id" help:"Wait for this round (with --send-no for ERASE and REFILE)."`
	SendNo    int           `name:"send-no" help:"The broadcast of --request-id (0 for CHECK and CLASSIFY)."`
	Expect    []string      `help:"Subscribers expected to answer --request-id, instead of the roster; exit 0 once all have."`
	Timeout   time.Duration `default:"0s" help:"Stop after this long (0: until Ctrl-C, or until every expected store has answered)."`
	// The roster: which stores a round waits for, and who may answer for each.
	RosterFrom  string            `name:"roster-from" default:"cdk.out" help:"The cloud assembly whose channel declares the roster (ErasureChannelProps.Stores): every round waits for its stores, and an answer counts only when SQS names that store's handler role and function as its sender."`
	RoleID      map[string]string `name:"role-id" help:"store=AROA…: the unique id of a store's handler role (repeatable); every store on the roster needs one, here or in --role-ids-from."`
	RoleIDsFrom string            `name:"role-ids-from" help:"A cdk deploy --outputs-file JSON of the store stacks: their ErasureHandlerRoleId… outputs give each store's role id."`
	NoRoster    bool              `name:"no-roster" help:"A channel without a roster: count every valid answer, whoever sent it (unauthenticated)."`
}

// roster reads the roster from --roster-from and each store's role id from
// --role-id and --role-ids-from. It fails closed: no roster there (a
// missing or unreadable path, a channel without one) or a store without its
// role id is an error, never a roster that counts anything; only
// --no-roster reads without one.
func (w *watchCmd) roster() (publisher.Roster, error) {
	if w.NoRoster {
		if len(w.RoleID) > 0 || w.RoleIDsFrom != "" {
			return nil, fail(exitUsage, "--role-id and --role-ids-from need a roster; drop --no-roster")
		}
		return nil, nil
	}
	if _, err := os.Stat(w.RosterFrom); err != nil {
		return nil, fail(exitUsage, "no roster at --roster-from %s: watch counts no answer without the channel's roster (give its cloud assembly; --no-roster for a channel without one)", w.RosterFrom)
	}
	names, err := erasurecheck.Roster([]string{w.RosterFrom})
	if err != nil {
		return nil, fail(exitEnvironment, "the roster in %s cannot be read: %v", w.RosterFrom, err)
	}
	if len(names) == 0 {
		return nil, fail(exitUsage, "%s holds no channel with a roster: watch counts no answer without one (--no-roster for a channel without one)", w.RosterFrom)
	}
	ids := map[string]string{}
	if w.RoleIDsFrom != "" {
		if ids, err = roleIDsFromOutputs(w.RoleIDsFrom); err != nil {
			return nil, fail(exitUsage, "%v", err)
		}
	}
	for n, id := range w.RoleID {
		ids[n] = id
	}
	r := publisher.Roster{}
	for _, n := range names {
		r[n] = publisher.Sender{Session: contract.HandlerName(n), RoleID: ids[n]}
	}
	for n := range ids {
		if _, ok := r[n]; !ok {
			return nil, fail(exitUsage, "a role id is given for %q, which is not on the roster", n)
		}
	}
	if err := r.Check(); err != nil {
		return nil, fail(exitUsage, "%v: a function name alone never authenticates an answer; give --role-id store=AROA… or --role-ids-from (the store stacks' %s outputs)", err, contract.RoleIDOutputPrefix)
	}
	return r, nil
}

// roleIDsFromOutputs reads "<store>=<role id>" from every
// ErasureHandlerRoleId… output of a cdk deploy --outputs-file JSON
// ({"<stack>": {"<output>": "<value>"}}).
func roleIDsFromOutputs(path string) (map[string]string, error) {
	b, err := bounded.ReadFile(path, maxOutputsFileBytes)
	if err != nil {
		return nil, err
	}
	var stacks map[string]map[string]string
	if err := json.Unmarshal(b, &stacks); err != nil {
		return nil, fmt.Errorf("--role-ids-from %s is not a cdk deploy --outputs-file JSON", path)
	}
	out := map[string]string{}
	for _, outputs := range stacks {
		for k, v := range outputs {
			if !strings.HasPrefix(k, contract.RoleIDOutputPrefix) {
				continue
			}
			store, id, ok := strings.Cut(v, "=")
			if !ok || !contract.IsSubscriberName(store) || !contract.IsRoleID(id) {
				return nil, fmt.Errorf("--role-ids-from %s: output %s is not <store>=<role id>", path, k)
			}
			if prev, dup := out[store]; dup && prev != id {
				return nil, fmt.Errorf("--role-ids-from %s: two role ids for one store", path)
			}
			out[store] = id
		}
	}
	return out, nil
}

// maxOutputsFileBytes bounds --role-ids-from: outputs of thousands of stacks.
const maxOutputsFileBytes = 16 << 20

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
	roster, err := w.roster()
	if err != nil {
		return err
	}
	expect := w.Expect
	if len(expect) == 0 && w.RequestID != "" {
		if roster == nil {
			return fail(exitUsage, "no roster in %s to wait for: give --roster-from (the channel's cloud assembly) or --expect", w.RosterFrom)
		}
		expect = roster.Stores()
	}
	cl, err := w.clients(ctx)
	if err != nil {
		return err
	}
	collector := publisher.NewCollector()
	reader := publisher.NewReader(&printingReceiver{ReceiveAPI: cl.SQS, g: g, json: g.JSON, roster: roster}, w.QueueURL, collector, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if roster != nil {
		reader.WithRoster(roster)
	}
	key := publisher.RoundKey{RequestID: w.RequestID, SendNo: w.SendNo}
	for ctx.Err() == nil {
		if _, err := reader.Poll(ctx, time.Second); err != nil && ctx.Err() == nil {
			return fail(exitEnvironment, "receive from the response queue failed")
		}
		if len(expect) > 0 {
			st := collector.Status(key, expect)
			if st.Complete() {
				if !g.JSON {
					fmt.Fprintf(g.Stdout, "every expected subscriber answered round %s (NOT_APPLICABLE: %s)\n", roundLabel(w.RequestID, w.SendNo), strings.Join(st.NotApplicable, ", "))
				}
				return nil
			}
		}
	}
	if len(expect) > 0 {
		st := collector.Status(key, expect)
		return fail(exitCheckFailed, "no answer from: %s", strings.Join(st.Missing, ", "))
	}
	return nil
}

// printingReceiver prints every valid answer it hands the reader.
type printingReceiver struct {
	publisher.ReceiveAPI
	g      *globals
	json   bool
	roster publisher.Roster // with a roster, an answer its sender may not give is printed as refused
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
		if p.roster != nil && !p.roster.Allows(r.Subscriber, m.Attributes[string(sqstypes.MessageSystemAttributeNameSenderId)]) {
			// Not counted: say so, without what it claims.
			line = answerLine{Round: line.Round, Subscriber: "-", Type: "-", Answer: contract.CodeSenderNotOnRoster}
		}
		if p.json {
			b, _ := json.Marshal(line)
			fmt.Fprintln(p.g.Stdout, string(b))
		} else {
			fmt.Fprintf(p.g.Stdout, "round %-12s %-12s %-20s %s\n", line.Round, line.Subscriber, line.Type, line.Answer)
		}
	}
	return out, nil
}
