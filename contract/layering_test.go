package contract

import (
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/schema"
)

// TestContractPullsInNoAWS: a store's Lambda imports contract without the
// AWS SDK, jsii or CloudFormation (ARCHITECTURE: contract is pure Go plus the
// schema validator).
func TestContractPullsInNoAWS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/aws/", "jsii", "cdk"} {
			if strings.Contains(dep, banned) {
				t.Errorf("contract depends on %s", dep)
			}
		}
	}
}

// TestManifestCoversEveryFixtureFile: no fixture file is left out of the
// manifest (a twin would never run it), and every entry names a file.
func TestManifestCoversEveryFixtureFile(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range loadFixtures(t) {
		if listed[c.File] {
			t.Errorf("%s listed twice", c.File)
		}
		listed[c.File] = true
		if c.Why == "" {
			t.Errorf("%s has no reason", c.File)
		}
	}
	err := fs.WalkDir(schema.Fixtures, "fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "fixtures/manifest.json" {
			return err
		}
		if !listed[strings.TrimPrefix(path, "fixtures/")] {
			t.Errorf("%s is not in the manifest", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
