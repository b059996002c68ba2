package main

import (
	"context"

	"github.com/linn-cloud/erasure-channel/cmd/internal/conformcli"
)

// conformCmd is erasurectl conform: conformcli.Cmd, as erasure-conform runs it.
type conformCmd struct {
	conformcli.Cmd
}

func (c *conformCmd) Run(g *globals) error {
	return c.Cmd.Run(context.Background(), g.Stdout)
}
