package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEveryReaderIsBounded: validate and check refuse, quickly and by name
// and limit, never by content, what would otherwise exhaust memory, hang or
// leave the assembly: a device, a FIFO, input past its limit (never cut and
// judged), a 200 MB template, a manifest naming a template outside the
// assembly or /dev/zero, nested assemblies naming themselves, a template
// nesting itself, and an unknown YAML tag.
func TestEveryReaderIsBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.template.json")
	if f, err := os.Create(big); err != nil || f.Truncate(200<<20) != nil || f.Close() != nil {
		t.Fatal("cannot make a sparse 200 MB file")
	}
	// A cloud assembly naming a template outside itself, and one naming /dev/zero.
	write("out/manifest.json", `{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"../secret.template.json"}}}}`)
	write("secret.template.json", `{"Resources":{}}`)
	write("zero/manifest.json", `{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"../../../../../../dev/zero"}}}}`)
	// Nested assemblies naming themselves, four times over.
	write("loop/manifest.json", `{"artifacts":{"A":{"type":"cdk:cloud-assembly","properties":{"directoryName":"."}},"B":{"type":"cdk:cloud-assembly","properties":{"directoryName":"."}},"C":{"type":"cdk:cloud-assembly","properties":{"directoryName":"."}},"D":{"type":"cdk:cloud-assembly","properties":{"directoryName":"."}}}}`)
	// A template whose nested stacks name itself.
	write("self/manifest.json", `{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"S.template.json"}}}}`)
	write("self/S.template.json", `{"Resources":{"N1":{"Type":"AWS::CloudFormation::Stack","Metadata":{"aws:asset:path":"S.template.json"},"Properties":{}},"N2":{"Type":"AWS::CloudFormation::Stack","Metadata":{"aws:asset:path":"S.template.json"},"Properties":{}}}}`)
	tagged := write("tag.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      Name: !SecretTagContent x\n")

	cases := []struct {
		name  string
		stdin []byte
		args  []string
		want  string
	}{
		{"validate a device", nil, []string{"validate", "/dev/zero"}, "zero is not a regular file"},
		{"validate a FIFO", nil, []string{"validate", fifo}, "fifo is not a regular file"},
		{"validate standard input past 1 MiB", bytes.Repeat([]byte("x"), 1<<20+1), []string{"validate", "-"}, "standard input is larger than its limit of 1048576 bytes"},
		{"check a 200 MB template", nil, []string{"check", "--allow-no-stores", big}, "big.template.json is larger than its limit of 16777216 bytes"},
		{"check a device", nil, []string{"check", "/dev/zero"}, "not a regular file"},
		{"a manifest naming a template outside the assembly", nil, []string{"check", filepath.Join(dir, "out")}, "lies outside the directory it is read from"},
		{"a manifest naming /dev/zero", nil, []string{"check", filepath.Join(dir, "zero")}, "lies outside the directory it is read from"},
		{"nested assemblies naming themselves", nil, []string{"check", filepath.Join(dir, "loop")}, "names itself as a nested assembly"},
		{"a template nesting itself", nil, []string{"check", filepath.Join(dir, "self")}, "nests its own template (a cycle)"},
		{"an unknown YAML tag", nil, []string{"check", tagged}, "a tag CloudFormation does not know"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			r := erasurectl(t, c.stdin, c.args...)
			out := r.stdout + r.stderr
			if r.code == 0 || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want a failure saying %q:\n%s", r.code, c.want, out)
			}
			if strings.Contains(out, "SecretTagContent") || strings.Contains(out, "xxxxxxxx") {
				t.Errorf("the error echoes the input:\n%s", out)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d) // a guard against a hang, not a speed goal
			}
		})
	}
}
