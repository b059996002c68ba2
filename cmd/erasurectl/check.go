package main

import "github.com/linn-cloud/erasure-channel/cmd/internal/checkcli"

// checkCmd is the app-wide check (cmd/internal/checkcli), the same command
// the construct package installs as erasure-check.
type checkCmd struct{ checkcli.Cmd }

func (c *checkCmd) Run(g *globals) error { return c.Cmd.Run(g.Stdout, g.JSON) }

// orgPolicyFlags are the organisation's policies, as check takes them.
type orgPolicyFlags = checkcli.OrgPolicyFlags
