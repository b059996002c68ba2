package design

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNagTwinsAreCdkNags: the rules the HIPAA Security and PCI DSS 3.2.1
// packs lack of the NIST 800-53 rev 5 pack are read from the cdk-nag module
// the constructs build with (its npm tarball, in the Go module cache).
func TestNagTwinsAreCdkNags(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cdklabs/cdk-nag-go/cdknag/v2").Output()
	if err != nil {
		t.Skip("the cdk-nag module is not in the module cache: ", err)
	}
	matches, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "jsii", "cdk-nag-*.tgz"))
	if len(matches) != 1 {
		t.Fatalf("no cdk-nag tarball in the module: %v", matches)
	}
	packs := readPacks(t, matches[0])
	nist := packs["nist-800-53-r5"]
	if len(nist) < 50 {
		t.Fatalf("read %d NIST 800-53 rev 5 rules", len(nist))
	}
	for pack, notIn := range map[string]map[string]bool{"hipaa-security": nistNotInHIPAA, "pci-dss-321": nistNotInPCI} {
		for rule := range nist {
			if packs[pack][rule] == notIn[rule] {
				t.Errorf("%s: rule %s in the pack: %v; the constructs say %v", pack, rule, packs[pack][rule], !notIn[rule])
			}
		}
	}
	s := NewSuppression(map[string]string{"NIST.800.53.R5-LambdaDLQ": "a reason of some length"})
	var ids []string
	for _, r := range s.Rules {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != "HIPAA.Security-LambdaDLQ NIST.800.53.R5-LambdaDLQ" {
		t.Errorf("the suppression's rules: %v", ids)
	}
}

var packRule = regexp.MustCompile(`rule: *[a-z_0-9]+\.([A-Za-z0-9]+)`)

// readPacks reads each pack's rule names from cdk-nag's npm tarball.
func readPacks(t *testing.T, tgz string) map[string]map[string]bool {
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(h.Name, "package/lib/packs/")
		if !ok || !strings.HasSuffix(name, ".js") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		rules := map[string]bool{}
		for _, m := range packRule.FindAllStringSubmatch(string(b), -1) {
			rules[m[1]] = true
		}
		out[strings.TrimSuffix(name, ".js")] = rules
	}
}
