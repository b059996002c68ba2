package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

type publishCmd struct {
	awsFlags
	Type      string    `arg:"" enum:"erase,refile,check,classify" help:"The request type: erase, refile, check or classify."`
	TopicArn  string    `name:"topic-arn" required:"" help:"The erasure topic."`
	KeyKind   string    `name:"key-kind" enum:"ACCOUNT,ADDRESS" default:"ACCOUNT" help:"ACCOUNT or ADDRESS (erase, check, classify)."`
	Key       string    `help:"The account id or address (an address is passed through addressKey)."`
	From      string    `help:"REFILE: the address the rows move from."`
	To        string    `help:"REFILE: the address the rows move to."`
	AccountID string    `name:"account-id" help:"REFILE: the account whose rows move."`
	CreatedAt time.Time `name:"created-at" help:"CHECK/CLASSIFY: when the round was created (RFC 3339); default now. Refused past P."`
}

type published struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	SendNo    int    `json:"sendNo,omitempty"`
	ExpiresAt string `json:"expiresAt"`
	Round     string `json:"round"`
}

// roundLabel is a short fingerprint of a round for terminal output, so that
// logs and screens need not carry the requestId itself.
func roundLabel(requestID string, sendNo int) string {
	h := sha256.Sum256([]byte(requestID))
	l := hex.EncodeToString(h[:4])
	if sendNo > 0 {
		l += "#" + strconv.Itoa(sendNo)
	}
	return l
}

func (p *publishCmd) Run(g *globals) error {
	ctx := context.Background()
	cl, err := p.clients(ctx)
	if err != nil {
		return err
	}
	pub := publisher.New(cl.SNS, p.TopicArn)
	var req contract.Request
	kind := contract.KeyKind(p.KeyKind)
	switch p.Type {
	case "erase":
		if p.Key == "" {
			return fail(exitUsage, "erase needs --key")
		}
		req, err = pub.Erase(ctx, kind, p.Key)
	case "refile":
		if p.From == "" || p.To == "" || p.AccountID == "" {
			return fail(exitUsage, "refile needs --from, --to and --account-id")
		}
		req, err = pub.Refile(ctx, p.From, p.To, p.AccountID)
	default:
		if p.Key == "" {
			return fail(exitUsage, "%s needs --key", p.Type)
		}
		created := p.CreatedAt
		if created.IsZero() {
			created = time.Now()
		}
		t := contract.TypeCheck
		if p.Type == "classify" {
			t = contract.TypeClassify
		}
		req, err = pub.PublishRound(ctx, publisher.Round{Type: t, KeyKind: kind, Key: p.Key, CreatedAt: created})
	}
	if err != nil {
		if pe, ok := err.(*publisher.PublishError); ok && (pe.Code == "INVALID_REQUEST" || pe.Code == "ROUND_TOO_LATE") {
			return fail(exitCheckFailed, "%v", err)
		}
		return fail(exitEnvironment, "%v", err)
	}
	out := published{Type: string(req.Type), RequestID: req.RequestID, SendNo: req.SendNo, ExpiresAt: contract.FormatTime(req.ExpiresAt), Round: roundLabel(req.RequestID, req.SendNo)}
	if g.JSON {
		b, _ := json.Marshal(out)
		fmt.Fprintln(g.Stdout, string(b))
		return nil
	}
	// The requestId is the script's to keep (--json); text output, which ends
	// up in terminals and CI logs, shows only the round's fingerprint.
	fmt.Fprintf(g.Stdout, "published %s (round %s), expires %s; --json prints the requestId for watch --request-id\n", out.Type, out.Round, out.ExpiresAt)
	return nil
}
