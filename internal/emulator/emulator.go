// Package emulator runs the SNS/SQS emulator (npm fauxqs, pinned in tools/)
// as a subprocess bound to 127.0.0.1, and beside it an in-process S3
// (gofakes3), for integration tests and erasurectl's local channel. It needs
// the Node 22 that tools/ installs (make tools).
package emulator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/linn-cloud/erasure-channel/internal/emulator/sqssns"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// Emulator is a running emulator.
type Emulator struct {
	// Endpoint is the base URL every SDK client points at (http://127.0.0.1:port).
	Endpoint string
	// Region is the region the emulator names resources in.
	Region string
	// S3 is the S3 endpoint started with it (for the bitmap store).
	S3 *S3

	sqs  *sqssns.Server
	once sync.Once
}

// Options configure Start.
type Options struct {
	// Root is the repository root holding tools/; default: found from the
	// working directory upwards.
	Root string
	// Region defaults to eu-west-1.
	Region string
	// StartTimeout bounds the wait for the endpoint; default 30 s.
	StartTimeout time.Duration
}

// ErrToolsMissing means tools/ has not been installed (run make tools).
var ErrToolsMissing = pinnednode.ErrToolsMissing

// The pinned Node, as pinnednode finds it.
var (
	FindRoot   = pinnednode.FindRoot
	NodePath   = pinnednode.NodePath
	PinnedNode = pinnednode.Find
)

// Start launches the SNS/SQS emulator (sqssns) and the S3 beside it.
func Start(ctx context.Context, opts Options) (*Emulator, error) {
	s, err := sqssns.Start(ctx, sqssns.Options{Root: opts.Root, Region: opts.Region, StartTimeout: opts.StartTimeout})
	if err != nil {
		return nil, err
	}
	e := &Emulator{Region: s.Region, Endpoint: s.Endpoint, sqs: s}
	if e.S3, err = StartS3(e.Region); err != nil {
		e.Stop()
		return nil, fmt.Errorf("emulator: S3: %w", err)
	}
	return e, nil
}

// Stop ends the emulator: it closes stdin (a clean stop), then kills it if it
// has not exited within 5 s.
func (e *Emulator) Stop() {
	e.once.Do(func() {
		if e.S3 != nil {
			e.S3.Stop()
		}
		e.sqs.Stop()
	})
}
