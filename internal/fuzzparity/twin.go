// Package fuzzparity judges generated and mutated messages with the Go
// contract (fast parser, schema path, request and response parsers) and with
// the TypeScript twin's validator (ajv 2020 strict plus its wire profile, in
// one long-lived Node process fed in batches) and reports every disagreement,
// minimised.
package fuzzparity

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

// twinTypes are the message types in the order fuzz-judge.mjs numbers them.
var twinTypes = []string{"erasure/ERASE", "erasure/REFILE", "erasure/CLASSIFY", "erasure/CHECK", "erasure/ACK", "erasure/REFILE_ACK", "erasure/HOLDINGS"}

// Twin is the TypeScript twin's judge, running in one Node process.
type Twin struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	raw io.WriteCloser
	out *bufio.Reader
}

// StartTwin starts tools/fuzz-judge.mjs with the pinned Node found above the
// working directory.
func StartTwin() (*Twin, error) {
	root, node, err := emulator.PinnedNode("")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(node, filepath.Join(root, "tools", "fuzz-judge.mjs"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Twin{cmd: cmd, in: bufio.NewWriterSize(in, 1<<20), raw: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// Judge returns the twin's verdict for every input, in order: NOT_JSON,
// INVALID_MESSAGE or VALID:<type>. Writing runs beside reading, so a batch of
// any size cannot deadlock on full pipes.
func (t *Twin) Judge(batch [][]byte) ([]string, error) {
	werr := make(chan error, 1)
	go func() {
		var hdr [4]byte
		for _, b := range batch {
			binary.BigEndian.PutUint32(hdr[:], uint32(len(b)))
			if _, err := t.in.Write(hdr[:]); err != nil {
				werr <- err
				return
			}
			if _, err := t.in.Write(b); err != nil {
				werr <- err
				return
			}
		}
		werr <- t.in.Flush()
	}()
	out := make([]string, len(batch))
	var ans [2]byte
	for i := range batch {
		if _, err := io.ReadFull(t.out, ans[:]); err != nil {
			return nil, fmt.Errorf("fuzzparity: the twin stopped answering: %w", err)
		}
		switch ans[0] {
		case 'J':
			out[i] = "NOT_JSON"
		case 'I':
			out[i] = "INVALID_MESSAGE"
		case 'V':
			if int(ans[1]) >= len(twinTypes) {
				return nil, errors.New("fuzzparity: the twin named an unknown type")
			}
			out[i] = "VALID:" + twinTypes[ans[1]]
		default:
			return nil, errors.New("fuzzparity: the twin's answer is not a verdict")
		}
	}
	return out, <-werr
}

// Close stops the twin.
func (t *Twin) Close() error {
	_ = t.raw.Close()
	return t.cmd.Wait()
}
