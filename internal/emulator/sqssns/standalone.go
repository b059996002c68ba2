package sqssns

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// sqsSNSScript starts fauxqs; it runs in a folder whose node_modules holds it.
//
//go:embed sqs_sns.mjs
var sqsSNSScript string

// FauxqsVersion is the fauxqs a standalone emulator installs: the one
// tools/package.json pins (TestFauxqsPinIsTools holds them equal).
const FauxqsVersion = "2.4.1"

// minNodeMajor is the oldest Node fauxqs runs on (its engines: >=22.5).
const minNodeMajor = 22

// emulatorNode is the node to run the SNS/SQS emulator with and the folder
// holding its node_modules: the repository's pinned tools/, or, outside the
// repository when opts.Cache is set, the node on PATH and fauxqs installed
// once into the cache from npm.
func emulatorNode(opts Options) (node, modules string, err error) {
	root, node, err := pinnednode.Find(opts.Root)
	if err == nil {
		return node, filepath.Join(root, "tools"), nil
	}
	if opts.Cache == "" || opts.Root != "" {
		return "", "", err
	}
	if node, err = exec.LookPath("node"); err != nil {
		return "", "", errors.New("emulator: the SNS/SQS emulator needs Node 22 or later on PATH (CDK needs it too)")
	}
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < minNodeMajor {
		return "", "", fmt.Errorf("emulator: the SNS/SQS emulator needs Node %d or later; the node on PATH is older", minNodeMajor)
	}
	dir, err := lambdaemu.InstallOnce(filepath.Join(opts.Cache, "fauxqs-"+FauxqsVersion), ".installed", func(tmp string) error {
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private":true}`), 0o644); err != nil {
			return err
		}
		npm := filepath.Join(filepath.Dir(node), "npm")
		if _, err := os.Stat(npm); err != nil {
			npm = "npm"
		}
		cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "fauxqs@"+FauxqsVersion)
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("emulator: npm install fauxqs@%s: %w\n%s", FauxqsVersion, err, out)
		}
		return nil
	})
	return node, dir, err
}
