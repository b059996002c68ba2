package erasure

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/constructrule"
)

// channelRefusals are ErasureChannel and ErasureLedger props that break
// each rule of theirs, by the rule's id: one stack each, synthesized alone.
var channelRefusals = map[string]func(stack awscdk.Stack, code awslambda.Code){
	constructrule.RuleChannelRoster: func(s awscdk.Stack, code awslambda.Code) {
		NewErasureChannel(s, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{publisherARN},
			Stores: []RosterStore{{Name: "orders", Account: "111111111111"}, {Name: "orders", Account: "111111111111"}}})
	},
	constructrule.RuleChannelOrganisation: func(s awscdk.Stack, code awslambda.Code) {
		NewErasureChannel(s, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{publisherARN}, OrganizationID: "o-x"})
	},
	constructrule.RuleChannelPrincipals: func(s awscdk.Stack, code awslambda.Code) {
		NewErasureChannel(s, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{"account-service"}})
	},
	constructrule.RuleLedgerGiven: func(s awscdk.Stack, code awslambda.Code) {
		NewErasureLedger(s, jsii.String("Ledger"), nil)
	},
	constructrule.RuleLedgerRolesDeclared: func(s awscdk.Stack, code awslambda.Code) {
		ch := NewErasureChannel(s, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{publisherARN}})
		NewErasureLedger(s, jsii.String("Ledger"), &ErasureLedgerProps{Channel: ch, Code: code})
	},
	constructrule.RuleLedgerRosterOnly: func(s awscdk.Stack, code awslambda.Code) {
		reader, sweeper := LedgerPrincipals("aws", "111111111111")
		ch := NewErasureChannel(s, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{publisherARN, sweeper}, ResponseReaders: []string{publisherARN, reader},
			Stores: []RosterStore{{Name: "orders", Account: "111111111111"}}})
		NewErasureLedger(s, jsii.String("Ledger"), &ErasureLedgerProps{Channel: ch, Code: code,
			LingeringDays: map[string]int{"ordres": 3}})
	},
}

const publisherARN = "arn:aws:iam::111111111111:role/account-service"

// refusalOf is a refusal line of CDK's validation error: the rule id, the
// construct and its prop.
var refusalOf = regexp.MustCompile(`\] (EC\d{3}) (ErasureChannel|ErasureLedger)[^\n]*\n\s*Fix: `)

// anyRefusal is any line of CDK's validation error that names a construct.
var anyRefusal = regexp.MustCompile(`(?m)^\s*\[[^\]\n]+\] [^\n]*`)

// TestChannelAndLedgerRefusalsNameTheirRules: every prop rule of
// ErasureChannel and ErasureLedger refuses its broken props at synth under
// its own id (the check's catalogue lists the same id, docs/check-rules.md),
// with its fix on the next line, and under no other.
func TestChannelAndLedgerRefusalsNameTheirRules(t *testing.T) {
	if len(channelRefusals) != len(constructrule.ChannelRules) {
		t.Fatalf("%d cases for %d rules", len(channelRefusals), len(constructrule.ChannelRules))
	}
	for _, id := range constructrule.ChannelRules {
		build := channelRefusals[id]
		if build == nil {
			t.Errorf("%s: no case", id)
			continue
		}
		t.Run(id, func(t *testing.T) {
			app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte("ledger"), 0o755); err != nil {
				t.Fatal(err)
			}
			build(awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("eu-west-1")}}), awslambda.Code_FromAsset(jsii.String(dir), nil))
			err := synthError(app)
			if err == "" {
				t.Fatal("synth passed")
			}
			lines := refusalOf.FindAllStringSubmatch(err, -1)
			if len(lines) == 0 {
				t.Fatalf("no refusal line with a rule and its fix:\n%s", err)
			}
			for _, l := range lines {
				if l[1] != id {
					t.Errorf("refused under %s, want %s:\n%s", l[1], id, err)
				}
			}
			for _, l := range anyRefusal.FindAllString(err, -1) {
				if !strings.Contains(l, "] EC") {
					t.Errorf("a refusal line without its rule: %q", l)
				}
			}
		})
	}
}

// synthError is the text of app.Synth()'s error, "" when it passed.
func synthError(app awscdk.App) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprint(r)
		}
	}()
	app.Synth(nil)
	return ""
}
