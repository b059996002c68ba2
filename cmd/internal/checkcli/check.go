package checkcli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

// Cmd is the check's flags and arguments, as kong reads them.
type Cmd struct {
	Paths       []string `arg:"" name:"path" help:"A cloud assembly directory (cdk.out, from any CDK language) or CloudFormation templates (JSON or YAML)."`
	TopicArn    []string `name:"topic-arn" help:"The erasure topic's ARN, for a channel deployed by another app (repeatable)."`
	TopicKeyArn []string `name:"topic-key-arn" help:"The erasure topic's KMS key ARN, for a channel deployed by another app (its TopicKeyArn output; repeatable): a bitmap bucket under it is refused."`
	Format      string   `enum:"text,json,sarif" default:"text" help:"Output: text (one line per problem), json, or sarif (SARIF 2.1.0 for code scanning)."`
	OrgPolicyFlags
	// AllowNoStores accepts templates with no store: without it, finding none
	// fails, since a guardrail that recognised nothing has checked nothing.
	AllowNoStores bool `name:"allow-no-stores" help:"Exit 0 when no queue subscribed to the erasure topic is found (default: exit 1, since nothing was checked)."`
	// Access applies the access matrix as the plugin does with Config.Access.
	Access bool `name:"access" help:"Also refuse every access-matrix cell that is not what the channel needs (the plugin's Config.Access; erasurectl access prints every cell)."`
	// Parameter gives template parameters the values a deploy would pass.
	Parameter map[string]string `name:"parameter" help:"K=V: judge with template parameter K set to V, as a deploy passes it (repeatable); a parameter without one takes its Default."`
	// Quotas prints the largest use of every quota the check models.
	Quotas bool `name:"quotas" help:"Print, for every AWS quota the check models, the resource that uses the most of it, against the quota (values only deploy knows at their least)."`
}

// findingOut is one finding as the json format prints it.
type findingOut struct {
	Path      string `json:"path"`
	Type      string `json:"type"`
	Message   string `json:"message"` // path: type: detail, the text output's line
	Detail    string `json:"detail"`
	Stack     string `json:"stack"`
	Template  string `json:"template"`
	LogicalID string `json:"logicalId"`
	Line      int    `json:"line,omitempty"`
}

// Run checks the paths and prints the result to stdout (JSON when asJSON,
// whatever --format says): an *ExitError with ExitCheckFailed when a problem
// is found or nothing was checked, ExitUsage for paths it cannot read.
func (c *Cmd) Run(stdout io.Writer, asJSON bool) error {
	if c.Quotas {
		return c.printQuotas(stdout)
	}
	scps, rcps, units, err := c.Policies()
	if err != nil {
		return err
	}
	res, err := erasurecheck.CheckPaths(c.Paths, erasurecheck.Config{TopicArns: c.TopicArn, TopicKeyArns: c.TopicKeyArn, Access: c.Access, Parameters: c.Parameter,
		SCPs: scps, RCPs: rcps, Units: units})
	if err != nil {
		return Fail(ExitUsage, "%v", err)
	}
	lines := map[string]map[string]int{}
	lineOf := func(f erasurecheck.Finding) int {
		if _, ok := lines[f.Template]; !ok {
			lines[f.Template] = cfnmodel.ResourceLines(f.Template)
		}
		return lines[f.Template][f.LogicalID]
	}
	format := c.Format
	if asJSON {
		format = "json"
	}
	switch format {
	case "json":
		out := struct {
			Stores   int          `json:"stores"`
			Findings []findingOut `json:"findings"`
		}{Stores: len(res.Stores), Findings: []findingOut{}}
		for _, f := range res.Findings {
			out.Findings = append(out.Findings, findingOut{f.Path, string(f.Type), f.String(), f.Detail, f.Stack, f.Template, f.LogicalID, lineOf(f)})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	case "sarif":
		b, _ := json.MarshalIndent(sarifLog(res.Findings, lineOf), "", "  ")
		fmt.Fprintln(stdout, string(b))
	default:
		fmt.Fprintf(stdout, "%d stores subscribed to the erasure topic, %d problems\n", len(res.Stores), len(res.Findings))
		for _, f := range res.Findings {
			fmt.Fprintln(stdout, f.String())
		}
	}
	if len(res.Findings) > 0 {
		return Fail(ExitCheckFailed, "%d problems", len(res.Findings))
	}
	if len(res.Stores) == 0 && !c.AllowNoStores {
		return Fail(ExitCheckFailed, "no queue subscribed to the erasure topic was found, so nothing was checked: name the topic with --topic-arn (or pass --allow-no-stores)")
	}
	return nil
}

// toolVersion is erasurectl's module version as dotted numbers, as SARIF
// consumers compare them: "0.0.0" when built from a clone ("(devel)").
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := strings.TrimPrefix(bi.Main.Version, "v")
		if core, _, _ := strings.Cut(v, "-"); core != "" && strings.Trim(core, "0123456789.") == "" {
			return core
		}
	}
	return "0.0.0"
}

// sarifLog is a SARIF 2.1.0 log: one run, one rule per problem type, one
// result per finding located at its resource's line in its template.
func sarifLog(findings erasurecheck.Findings, lineOf func(erasurecheck.Finding) int) map[string]any {
	ruleIndex := map[string]int{}
	var types []string
	for _, f := range findings {
		if _, ok := ruleIndex[string(f.Type)]; !ok {
			ruleIndex[string(f.Type)] = 0
			types = append(types, string(f.Type))
		}
	}
	sort.Strings(types)
	rules := []any{}
	for i, t := range types {
		ruleIndex[t] = i
		rules = append(rules, map[string]any{
			"id":               t,
			"name":             "ErasureChannel" + t,
			"shortDescription": map[string]any{"text": "erasure channel: " + t},
			"helpUri":          "https://github.com/linn-cloud/erasure-channel#guardrails-for-every-store-the-app-wide-check",
		})
	}
	results := []any{}
	for _, f := range findings {
		loc := map[string]any{"artifactLocation": map[string]any{"uri": filepath.ToSlash(f.Template)}}
		if l := lineOf(f); l > 0 {
			loc["region"] = map[string]any{"startLine": l}
		}
		results = append(results, map[string]any{
			"ruleId":    string(f.Type),
			"ruleIndex": ruleIndex[string(f.Type)],
			"level":     "error",
			"message":   map[string]any{"text": f.String()},
			"locations": []any{map[string]any{
				"physicalLocation": loc,
				"logicalLocations": []any{map[string]any{"name": f.LogicalID, "fullyQualifiedName": f.Stack + "/" + f.LogicalID, "kind": "resource"}},
			}},
		})
	}
	return map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{"name": "erasurectl check", "version": toolVersion(),
				"informationUri": "https://github.com/linn-cloud/erasure-channel", "rules": rules}},
			"results": results,
		}},
	}
}

// printQuotas prints the largest use of each quota over the paths, one line each.
func (c *Cmd) printQuotas(stdout io.Writer) error {
	uses, err := erasurecheck.QuotaUsage(c.Paths)
	if err != nil {
		return Fail(ExitUsage, "%v", err)
	}
	top := map[string]erasurecheck.QuotaUse{}
	var names []string
	for _, u := range uses {
		if t, ok := top[u.Quota]; !ok || u.Used > t.Used {
			if !ok {
				names = append(names, u.Quota)
			}
			top[u.Quota] = u
		}
	}
	sort.Strings(names)
	for _, n := range names {
		u := top[n]
		fmt.Fprintf(stdout, "%-50s %9d of %9d (%5.1f%%)  %s\n", n, u.Used, u.Limit, 100*float64(u.Used)/float64(u.Limit), u.Path)
	}
	return nil
}

// OrgPolicyFlags are an organisation's service and resource control policies
// to judge, each TARGET=FILE (repeatable: the files of one account, unit or
// root are the policies attached there), and where each account sits.
type OrgPolicyFlags struct {
	SCP []string `name:"scp" placeholder:"TARGET=FILE" help:"A service control policy attached to an account, an organisational unit (ou-…) or a root (r-…); repeatable. Every level on an account's path must allow."`
	RCP []string `name:"rcp" placeholder:"TARGET=FILE" help:"A resource control policy attached to an account, unit or root (repeatable, levels as --scp)."`
	OU  []string `name:"ou" placeholder:"ACCOUNT=ROOT/OU/..." help:"Where an account sits: its root, then each unit down to its own (repeatable; needed for every account of the app once a unit or root has policies)."`
}

// maxOrgPolicyBytes bounds a policy file (SCPs and RCPs are at most 5,120
// characters; the bound leaves room for whitespace).
const maxOrgPolicyBytes = 64 << 10

// Policies reads the policy files the flags name.
func (f OrgPolicyFlags) Policies() (scps, rcps map[string][]any, units map[string][]string, err error) {
	read := func(flag string, entries []string) (map[string][]any, error) {
		out := map[string][]any{}
		for _, e := range entries {
			target, file, ok := strings.Cut(e, "=")
			if !ok || !erasurecheck.IsOrganisationTarget(target) || file == "" {
				return nil, Fail(ExitUsage, "--%s takes TARGET=FILE: a 12-digit account id, a unit id (ou-…) or a root id (r-…), and a policy file", flag)
			}
			b, err := bounded.ReadFile(file, maxOrgPolicyBytes)
			if err != nil {
				return nil, Fail(ExitUsage, "--%s: %v", flag, err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil || doc["Statement"] == nil {
				return nil, Fail(ExitUsage, "--%s: %s is not a policy document (JSON with a Statement)", flag, filepath.Base(file))
			}
			out[target] = append(out[target], doc)
		}
		return out, nil
	}
	if scps, err = read("scp", f.SCP); err != nil {
		return nil, nil, nil, err
	}
	if rcps, err = read("rcp", f.RCP); err != nil {
		return nil, nil, nil, err
	}
	units = map[string][]string{}
	for _, e := range f.OU {
		acct, path, ok := strings.Cut(e, "=")
		if !ok || len(acct) != 12 || strings.Trim(acct, "0123456789") != "" {
			return nil, nil, nil, Fail(ExitUsage, "--ou takes ACCOUNT=ROOT/OU/..., a 12-digit account id and its path")
		}
		if units[acct], err = erasurecheck.ParseUnitPath(path); err != nil {
			return nil, nil, nil, Fail(ExitUsage, "--ou: %v", err)
		}
	}
	return scps, rcps, units, nil
}
