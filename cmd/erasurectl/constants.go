package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/linn-cloud/erasure-channel/contract"
)

type constantsCmd struct{}

type constantRow struct {
	Name    string `json:"name"`
	Symbol  string `json:"symbol,omitempty"`
	Value   int    `json:"value"`
	Check   string `json:"check,omitempty"`
	Holds   bool   `json:"holds"`
	Meaning string `json:"meaning"`
}

func constantRows(c contract.Constants) []constantRow {
	e := contract.ConstantEntries()
	row := func(name string, value int, check string, holds bool) constantRow {
		return constantRow{Name: name, Symbol: e[name].Symbol, Value: value, Check: check, Holds: holds, Meaning: e[name].Meaning}
	}
	T, N, V, X, b, S, R := c.HandlerTimeoutCapSeconds, c.MaxReceiveCount, c.VisibilityTimeoutCapSeconds, c.PassTwoDelayCapSeconds, c.BatchTimeoutCapSeconds, c.ClockSkewAllowanceSeconds, c.ExpiryPeriodSeconds
	bound := c.RedeliveryBoundSeconds()
	dup := R + S + T + b
	return []constantRow{
		row("handlerTimeoutCapSeconds", T, fmt.Sprintf("T <= Lambda limit %d", c.AWS.LambdaTimeoutMaxSeconds), T <= c.AWS.LambdaTimeoutMaxSeconds),
		row("visibilityTimeoutMultiplier", c.VisibilityTimeoutMultiplier, "", true),
		row("visibilityTimeoutCapSeconds", V, fmt.Sprintf("V = %d·T = %d·%d = %d", c.VisibilityTimeoutMultiplier, c.VisibilityTimeoutMultiplier, T, c.VisibilityTimeoutMultiplier*T), V == c.VisibilityTimeoutMultiplier*T),
		row("maxReceiveCount", N, "", true),
		row("passTwoDelayCapSeconds", X, fmt.Sprintf("X <= SQS delay limit %d", c.AWS.SQSDelayMaxSeconds), X <= c.AWS.SQSDelayMaxSeconds),
		row("batchTimeoutCapSeconds", b, fmt.Sprintf("b <= T = %d", T), b <= T),
		row("clockSkewAllowanceSeconds", S, "", true),
		row("expiryPeriodSeconds", R, fmt.Sprintf("R >= 2·(N−1)·V + 2·T + X = 2·%d·%d + 2·%d + %d = %d; R <= retention %d", N-1, V, T, X, bound, c.QueueRetentionSeconds), R >= bound && R <= c.QueueRetentionSeconds),
		row("roundPublishBoundSeconds", c.RoundPublishBoundSeconds, fmt.Sprintf("P > publisher tick %d", c.PublisherTickSeconds), c.RoundPublishBoundSeconds > c.PublisherTickSeconds),
		row("publisherTickSeconds", c.PublisherTickSeconds, "", true),
		row("queueRetentionSeconds", c.QueueRetentionSeconds, "", true),
		row("duplicateAfterCompletionWindowSeconds", c.DuplicateAfterCompletionWindowSeconds, fmt.Sprintf("R + S + T + b = %d + %d + %d + %d = %d", R, S, T, b, dup), c.DuplicateAfterCompletionWindowSeconds == dup),
		row("noncurrentVersionExpiryCapDays", c.NoncurrentVersionExpiryCapDays, "", true),
		row("maxBroadcasts", c.MaxBroadcasts, fmt.Sprintf("maxBroadcasts·R = %d·%d = %d < deadline warning %d", c.MaxBroadcasts, R, c.MaxBroadcasts*R, c.ErasureDeadlineWarningSeconds),
			c.MaxBroadcasts*R < c.ErasureDeadlineWarningSeconds),
		row("erasureDeadlineWarningSeconds", c.ErasureDeadlineWarningSeconds, "", true),
		row("ledgerAnswerRetentionDays", c.LedgerAnswerRetentionDays, "", true),
		row("ledgerAnchorRetentionDays", c.LedgerAnchorRetentionDays, "", true),
	}
}

func (constantsCmd) Run(g *globals) error {
	rows := constantRows(contract.Channel())
	if g.JSON {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(g.Stdout, string(b))
		return nil
	}
	w := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSYMBOL\tVALUE\tDERIVATION / BOUND\t")
	for _, r := range rows {
		mark := ""
		if r.Check != "" {
			mark = "ok"
			if !r.Holds {
				mark = "BROKEN"
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s %s\n", r.Name, r.Symbol, r.Value, r.Check, mark)
	}
	return w.Flush()
}
