package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/deployed"
)

type smokeCmd struct {
	Region        string            `default:"eu-west-1" env:"AWS_REGION" help:"The channel's region."`
	ChannelStack  string            `name:"channel-stack" default:"ErasureChannel" help:"The deployed channel stack: its outputs name the topic and the response queue."`
	AccountRole   map[string]string `name:"account-role" help:"ACCOUNT=ROLE_ARN (repeatable): read a store in another account through this role."`
	RunHandlers   bool              `name:"run-handlers" help:"Play Lambda for every store, for an engine that runs no function (the offline deploy): the handler binary under the Lambda Runtime Interface Emulator with the deployed environment, timeout and execution role, and a poller for the deployed event source mapping."`
	Handler       string            `help:"--run-handlers: the stores' handler binary, built for this host."`
	RIE           string            `name:"rie" help:"--run-handlers: the aws-lambda-rie binary."`
	PassTwoDelay  int               `name:"pass-two-delay" default:"-1" help:"--run-handlers: run pass two after this many seconds instead of the deployed ERASURE_PASS_TWO_DELAY_SECONDS (-1: the deployed value)."`
	Timeout       time.Duration     `default:"0s" help:"Give up after this long (0: the longest deployed pass-two delay plus R)."`
	HandlerLog    string            `name:"handler-log" help:"--run-handlers: append the emulators' and handlers' output to this file (default: discarded)."`
	LedgerHandler string            `name:"ledger-handler" help:"--run-handlers with a deployed ErasureLedger: its handler (cmd/erasure-ledger) built for this host, run as its reader and sweeper."`
}

// smokeStore is one store's line of the smoke table.
type smokeStore struct {
	Store    string   `json:"store"`
	Account  string   `json:"account"`
	Function string   `json:"function,omitempty"`
	Timeout  int32    `json:"timeoutSeconds,omitempty"`
	Visible  int      `json:"visibilityTimeoutSeconds,omitempty"`
	Batch    int32    `json:"batchSize,omitempty"`
	Check    string   `json:"check"`
	Erase    string   `json:"erase"`
	CheckMs  int64    `json:"checkAfterMs,omitempty"`
	EraseMs  int64    `json:"eraseAfterMs,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

type smokeSummary struct {
	Channel        string       `json:"channel"`
	Stores         []smokeStore `json:"stores"`
	Complete       bool         `json:"complete"`
	RefusedAnswers int          `json:"refusedAnswers"`
	Seconds        float64      `json:"seconds"`
	Ledger         *smokeLedger `json:"ledger,omitempty"`
}

func (s *smokeCmd) Run(g *globals) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if s.RunHandlers && (s.Handler == "" || s.RIE == "") {
		return fail(exitUsage, "--run-handlers needs --handler (the handler built for this host) and --rie")
	}
	if !s.RunHandlers && (s.Handler != "" || s.RIE != "" || s.PassTwoDelay >= 0) {
		return fail(exitUsage, "--handler, --rie and --pass-two-delay run handlers: add --run-handlers")
	}
	for acct := range s.AccountRole {
		if len(acct) != 12 || strings.Trim(acct, "0123456789") != "" {
			return fail(exitUsage, "--account-role: %q is not a 12-digit account id", acct)
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(s.Region))
	if err != nil {
		return fail(exitEnvironment, "AWS configuration: %v", err)
	}
	home := deployed.NewAccount(cfg)
	who, err := home.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return fail(exitEnvironment, "AWS credentials: %v", err)
	}
	homeAccount := aws.ToString(who.Account)
	accounts := map[string]*deployed.Account{homeAccount: home}
	resolve := func(ctx context.Context, account string) (*deployed.Account, bool, error) {
		if a, ok := accounts[account]; ok {
			return a, true, nil
		}
		role, ok := s.AccountRole[account]
		if !ok {
			return nil, false, nil
		}
		c := cfg.Copy()
		c.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(home.STS, role))
		a := deployed.NewAccount(c)
		accounts[account] = a
		return a, true, nil
	}
	start := time.Now()
	ch, stores, err := deployed.Discover(ctx, home, s.ChannelStack, resolve)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	if len(stores) == 0 {
		return fail(exitCheckFailed, "the channel's topic has no store subscribed")
	}
	roster := publisher.Roster{}
	var names []string
	longest := 0
	for _, st := range stores {
		names = append(names, st.Name)
		if st.Readable && st.RoleID != "" {
			roster[st.Name] = publisher.Sender{RoleID: st.RoleID, Session: st.Function}
		}
		delay, _ := strconv.Atoi(st.Environment[contract.EnvPassTwoDelaySeconds])
		if s.RunHandlers && s.PassTwoDelay >= 0 {
			delay = s.PassTwoDelay
		}
		longest = max(longest, delay)
	}
	var handlerLog io.Writer = io.Discard
	if s.HandlerLog != "" {
		f, err := os.OpenFile(s.HandlerLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fail(exitEnvironment, "--handler-log: %v", err)
		}
		defer f.Close()
		handlerLog = f
	}
	if s.RunHandlers {
		var override *int
		if s.PassTwoDelay >= 0 {
			override = &s.PassTwoDelay
		}
		for _, st := range stores {
			if !st.Readable || st.Function == "" {
				continue
			}
			a, _, _ := resolve(ctx, st.Account)
			run, err := deployed.Handler{Store: st, Binary: s.Handler, RIE: s.RIE, Endpoint: endpointURL(),
				Region: s.Region, PassTwoDelay: override, Log: handlerLog}.Start(ctx, a)
			if err != nil {
				return fail(exitEnvironment, "%v", err)
			}
			defer run.Stop()
		}
	}

	// Where the answers are read: a deployed ledger's reader consumes the
	// response queue, so the smoke run then records and reads through the
	// ledger, as the account service does; otherwise it reads the queue.
	led, hasLedger, err := deployed.FindLedger(ctx, home, ch)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	pub := publisher.New(home.SNS, ch.TopicArn)
	var src answerSource
	if hasLedger {
		ls, err := s.ledgerSource(ctx, cfg, home, led, pub, names, handlerLog)
		if err != nil {
			return err
		}
		defer ls.stop()
		src = ls
	} else {
		src = newQueueSource(ctx, home, ch, pub, roster)
	}
	defer src.close()

	sentinel := "smoke-" + randomHex(8)
	published := time.Now()
	checkReq, err := pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: sentinel, CreatedAt: published})
	if err != nil {
		return fail(exitEnvironment, "building the CHECK: %v", err)
	}
	check, err := src.publish(ctx, checkReq)
	if err != nil {
		return fail(exitEnvironment, "publishing the CHECK: %v", err)
	}
	erase, err := src.publish(ctx, pub.NewErase(contract.KeyAccount, sentinel))
	if err != nil {
		return fail(exitEnvironment, "publishing the ERASE: %v", err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		c := contract.Channel()
		timeout = time.Duration(longest)*time.Second + c.ExpiryPeriod()
	}
	deadline := time.After(timeout)
	if !g.JSON {
		via := "the response queue"
		if hasLedger {
			via = "the deployed ledger (its reader consumes the response queue)"
		}
		fmt.Fprintf(g.Stdout, "channel %s: %d stores subscribed; CHECK and ERASE published for a sentinel account; answers read through %s; waiting up to %s\n", ch.Stack, len(stores), via, timeout)
	}
	var cs, es map[string]smokeAnswer
wait:
	for {
		if cs, es, err = src.answers(ctx, check, erase); err != nil {
			return fail(exitEnvironment, "reading the answers: %v", err)
		}
		if len(cs) >= len(names) && len(es) >= len(names) {
			break
		}
		select {
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	sum := smokeSummary{Channel: ch.Stack, Complete: true, RefusedAnswers: src.refused(), Seconds: time.Since(start).Seconds()}
	if hasLedger {
		sum.Ledger = src.(*ledgerSource).receipts(ctx, check, erase)
		if !sum.Ledger.Verified {
			sum.Complete = false
		}
	}
	for _, st := range stores {
		line := smokeStore{Store: st.Name, Account: st.Account, Function: st.Function, Timeout: st.TimeoutSecs, Visible: st.VisibilitySecs, Batch: st.BatchSize,
			Check: "no answer", Erase: "no answer", Problems: st.Problems}
		if a, ok := cs[st.Name]; ok {
			line.Check, line.CheckMs = a.outcome, a.at.Sub(published).Milliseconds()
		}
		if a, ok := es[st.Name]; ok {
			line.Erase, line.EraseMs = a.outcome, a.at.Sub(published).Milliseconds()
		}
		okCheck := line.Check == string(contract.AnswerHoldsData) || line.Check == string(contract.AnswerHoldsNone) || line.Check == string(contract.AnswerNotApplicable)
		okErase := line.Erase == string(contract.OutcomeDone) || line.Erase == string(contract.OutcomeNotApplicable)
		if !okCheck || !okErase || len(st.Problems) > 0 {
			sum.Complete = false
		}
		sum.Stores = append(sum.Stores, line)
	}
	sort.Slice(sum.Stores, func(i, j int) bool { return sum.Stores[i].Store < sum.Stores[j].Store })
	if g.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum)
	} else {
		printSmoke(g.Stdout, sum)
	}
	if !sum.Complete {
		return fail(exitCheckFailed, "not every subscribed store answered CHECK and ERASE with an allowed outcome on a sound wiring")
	}
	return nil
}

func printSmoke(w io.Writer, sum smokeSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STORE\tACCOUNT\tFUNCTION\tTIMEOUT\tVISIBILITY\tBATCH\tCHECK\tAFTER\tERASE\tAFTER")
	after := func(ms int64) string {
		if ms == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	for _, st := range sum.Stores {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%ds\t%ds\t%d\t%s\t%s\t%s\t%s\n", st.Store, st.Account, st.Function, st.Timeout, st.Visible, st.Batch, st.Check, after(st.CheckMs), st.Erase, after(st.EraseMs))
	}
	tw.Flush()
	for _, st := range sum.Stores {
		for _, p := range st.Problems {
			fmt.Fprintf(w, "%s: %s\n", st.Store, p)
		}
	}
	if l := sum.Ledger; l != nil {
		state := "verifies"
		if !l.Verified {
			state = "DOES NOT VERIFY: " + l.Problem
		}
		fmt.Fprintf(w, "ledger %s: %d requests complete, %d receipts; the receipt log %s", l.Table, l.Complete, l.Receipts, state)
		if l.AnchorLocked {
			fmt.Fprintf(w, ", extends its anchor's latest head (%d records), whose deletion the bucket's Object Lock refused", l.Anchored)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "answers refused by the roster: %d; %.1f s\n", sum.RefusedAnswers, sum.Seconds)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
