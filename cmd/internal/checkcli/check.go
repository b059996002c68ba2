package checkcli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/cmd/internal/sarif"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

// Cmd is the check's flags and arguments, as kong reads them.
type Cmd struct {
	Paths       []string `arg:"" optional:"" name:"path" help:"A cloud assembly directory (cdk.out, from any CDK language) or CloudFormation templates (JSON or YAML)."`
	TopicArn    []string `name:"topic-arn" help:"The erasure topic's ARN, for a channel deployed by another app (repeatable)."`
	TopicKeyArn []string `name:"topic-key-arn" help:"The erasure topic's KMS key ARN, for a channel deployed by another app (its TopicKeyArn output; repeatable): a bitmap bucket under it is refused."`
	Format      string   `enum:"text,json,sarif,markdown" default:"text" help:"Output: text (one line per finding), json, sarif (SARIF 2.1.0 for code scanning); markdown only with --list-rules."`
	OrgPolicyFlags
	// Boundary gives permissions boundaries defined outside the app their documents.
	Boundary []string `name:"boundary" placeholder:"ARN=FILE" help:"A permissions boundary defined outside the app: its managed policy ARN and its document (repeatable). AWS's AdministratorAccess and PowerUserAccess need none."`
	// Acknowledgements names a file of acknowledgements, for plain templates.
	Acknowledgements string `name:"acknowledgements" placeholder:"FILE" type:"existingfile" help:"A YAML or JSON file of acknowledgements (rule, constructPath or stack and logicalId, reason); a CDK app records them in its cloud assembly instead."`
	// ListRules prints the rule catalogue.
	ListRules bool `name:"list-rules" help:"Print every rule (id, severity, title; --format json or markdown for all of it) and exit."`
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
	Rule          string           `json:"rule"`
	Severity      string           `json:"severity"`
	Path          string           `json:"path"`
	Type          string           `json:"type"`
	Message       string           `json:"message"` // path: type: detail, the text output's line
	Detail        string           `json:"detail"`
	Stack         string           `json:"stack"`
	Template      string           `json:"template"`
	LogicalID     string           `json:"logicalId"`
	ConstructPath string           `json:"constructPath,omitempty"`
	Property      string           `json:"property,omitempty"`
	Line          int              `json:"line,omitempty"`
	Column        int              `json:"column,omitempty"`
	Acknowledged  *acknowledgedOut `json:"acknowledged,omitempty"`
	// Violation is the finding as CDK's policy validation report states it
	// (the package's ErasureCheck reports it as is).
	Violation erasurecheck.Violation `json:"violation"`
}

// acknowledgedOut is the acknowledgement that covers a finding.
type acknowledgedOut struct {
	Reason string `json:"reason"`
	Source string `json:"source"`
}

// Run checks the paths and prints the result to stdout (JSON when asJSON,
// whatever --format says): an *ExitError with ExitCheckFailed when a finding
// fails (an error nobody acknowledged) or nothing was checked, ExitUsage for
// paths, policies or acknowledgements it cannot read.
func (c *Cmd) Run(stdout io.Writer, asJSON bool) error {
	format := c.Format
	if asJSON {
		format = "json"
	}
	if c.ListRules {
		return listRules(stdout, format)
	}
	if format == "markdown" {
		return Fail(ExitUsage, "--format markdown is for --list-rules")
	}
	if len(c.Paths) == 0 {
		return Fail(ExitUsage, "give a cloud assembly directory or templates to check")
	}
	if c.Quotas {
		return c.printQuotas(stdout)
	}
	scps, rcps, units, err := c.Policies()
	if err != nil {
		return err
	}
	boundaries, err := c.boundaries()
	if err != nil {
		return err
	}
	org, err := c.Organization()
	if err != nil {
		return err
	}
	var acks []erasurecheck.Acknowledgement
	if c.Acknowledgements != "" {
		b, err := bounded.ReadFile(c.Acknowledgements, 1<<20)
		if err != nil {
			return Fail(ExitUsage, "--acknowledgements: %v", err)
		}
		if acks, err = erasurecheck.ParseAcknowledgements(b, filepath.Base(c.Acknowledgements)); err != nil {
			return Fail(ExitUsage, "%v", err)
		}
	}
	res, err := erasurecheck.CheckPaths(c.Paths, erasurecheck.Config{TopicArns: c.TopicArn, TopicKeyArns: c.TopicKeyArn, Access: c.Access, Parameters: c.Parameter,
		SCPs: scps, RCPs: rcps, Units: units, OrganizationID: org, Boundaries: boundaries, Acknowledgements: acks})
	if err != nil {
		return Fail(ExitUsage, "%v", err)
	}
	failing := len(res.Findings.Failing())
	switch format {
	case "json":
		out := struct {
			Stores   int          `json:"stores"`
			Failing  int          `json:"failing"`
			Findings []findingOut `json:"findings"`
		}{Stores: len(res.Stores), Failing: failing, Findings: []findingOut{}}
		for _, f := range res.Findings {
			fo := findingOut{Path: f.Path.String(), Type: string(f.Type), Message: f.String(), Detail: f.Detail, Stack: f.Stack, Template: f.Template, LogicalID: f.LogicalID,
				ConstructPath: f.ConstructPath, Property: f.PropertyPath(), Line: f.Line, Column: f.Column, Severity: string(erasurecheck.SeverityError),
				Violation: erasurecheck.ViolationOf(f)}
			if f.Rule != nil {
				fo.Rule, fo.Severity = f.Rule.ID, string(f.Rule.Severity)
			}
			if k := f.Acknowledged; k != nil {
				fo.Acknowledged = &acknowledgedOut{Reason: k.Reason, Source: k.Source}
			}
			out.Findings = append(out.Findings, fo)
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	case "sarif":
		b, _ := json.MarshalIndent(sarifLog(res.Findings), "", "  ")
		fmt.Fprintln(stdout, string(b))
	default:
		warnings, acknowledged := 0, 0
		for _, f := range res.Findings {
			switch {
			case f.Acknowledged != nil:
				acknowledged++
			case !f.Fails():
				warnings++
			}
		}
		fmt.Fprintf(stdout, "%d stores subscribed to the erasure topic, %d problems, %d warnings, %d acknowledged\n", len(res.Stores), failing, warnings, acknowledged)
		for _, f := range res.Findings {
			fmt.Fprintln(stdout, TextLine(f))
		}
	}
	if failing > 0 {
		return Fail(ExitCheckFailed, "%d problems", failing)
	}
	if len(res.Stores) == 0 && !c.AllowNoStores {
		return Fail(ExitCheckFailed, "no queue subscribed to the erasure topic was found, so nothing was checked: name the topic with --topic-arn (or pass --allow-no-stores)")
	}
	return nil
}

// TextLine is a finding as the text output prints it: the line
// (path: Type: detail), then its rule and severity and where it points:
//
//	ErasureSubscriber[orders].visibilityTimeout: NotDerived: 120 s is ... [EC202 error; Orders/Requests Properties.VisibilityTimeout; orders.yaml:33:7; construct Orders/Orders/Queue/Resource]
//
// An acknowledged finding is a line of its own, beginning "acknowledged:"
// and ending with its reason.
func TextLine(f erasurecheck.Finding) string {
	var where []string
	if f.Rule != nil {
		sev := string(f.Rule.Severity)
		if f.Acknowledged != nil {
			sev = "acknowledged"
		}
		where = append(where, f.Rule.ID+" "+sev)
	}
	if f.LogicalID != "" {
		res := f.Stack + "/" + f.LogicalID
		if len(f.Property) > 0 {
			res += " " + f.PropertyPath()
		}
		where = append(where, res)
	}
	if f.Template != "" && f.Line > 0 {
		where = append(where, fmt.Sprintf("%s:%d:%d", filepath.Base(f.Template), f.Line, f.Column))
	}
	if f.ConstructPath != "" {
		where = append(where, "construct "+f.ConstructPath)
	}
	line := f.String()
	if len(where) > 0 {
		line += " [" + strings.Join(where, "; ") + "]"
	}
	if k := f.Acknowledged; k != nil {
		line = "acknowledged: " + line + " reason: " + strconv.Quote(k.Reason)
	}
	return line
}

// listRules prints the catalogue: text (id, severity, title), json (every
// field) or markdown (docs/check-rules.md).
func listRules(stdout io.Writer, format string) error {
	rules := erasurecheck.Rules()
	switch format {
	case "json":
		b, _ := json.MarshalIndent(RulesOut(rules), "", "  ")
		fmt.Fprintln(stdout, string(b))
	case "markdown":
		fmt.Fprint(stdout, RulesMarkdown(rules))
	case "sarif":
		return Fail(ExitUsage, "--list-rules prints text, json or markdown")
	default:
		for _, r := range rules {
			fmt.Fprintf(stdout, "%-6s %-8s %s\n", r.ID, r.Severity, r.Title)
		}
	}
	return nil
}

// RuleOut is a rule as --list-rules --format json prints it.
type RuleOut struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Title           string `json:"title"`
	Why             string `json:"why"`
	Fix             string `json:"fix"`
	Severity        string `json:"severity"`
	Type            string `json:"type"`
	Source          string `json:"source"`
	Reference       string `json:"reference,omitempty"`
	Acknowledgeable bool   `json:"acknowledgeable"`
	HelpURI         string `json:"helpUri"`
}

// RulesOut is the catalogue as JSON values.
func RulesOut(rules []*erasurecheck.Rule) []RuleOut {
	out := make([]RuleOut, 0, len(rules))
	for _, r := range rules {
		out = append(out, RuleOut{r.ID, r.Name, r.Title, r.Why, r.Fix, string(r.Severity), string(r.Type), string(r.Source), r.Reference, r.Acknowledgeable, r.HelpURI()})
	}
	return out
}

// RulesMarkdown is docs/check-rules.md: one section per rule, generated from
// the registry (make rules-doc; TestRulesPageMatchesRegistry), each with the
// functions that report it and the test of its fixtures (Rule.Implementation).
func RulesMarkdown(rules []*erasurecheck.Rule) string {
	var b strings.Builder
	b.WriteString("# The app-wide check's rules\n\n")
	b.WriteString("<!-- Generated from the registry (constructs/erasurecheck/rules_*.go) by `erasurectl check --list-rules --format markdown`; do not edit. -->\n\n")
	b.WriteString("Every finding of `erasurectl check`, `erasure-check` and the `ErasureCheck` plugin names one of these rules. An error fails the check\n")
	b.WriteString("and the synth; a warning is advice and never fails. A rule marked acknowledgeable may be acknowledged, one finding on one\n")
	fmt.Fprintf(&b, "construct at a time, with a reason of at least %d characters (docs/app-wide-check.md, \"Acknowledging a finding\"); the\n", erasurecheck.MinReasonLength)
	b.WriteString("channel's caps, derivations and lockdown never may.\n\n")
	b.WriteString("| id | name | severity | acknowledgeable | title |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Name, r.Severity, yesNo(r.Acknowledgeable), r.Title)
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n## %s\n\n**%s** (%s, problem type `%s`). %s\n\n", r.ID, r.Name, r.Severity, r.Type, r.Title)
		fmt.Fprintf(&b, "- **Why:** %s\n- **Fix:** %s\n", r.Why, r.Fix)
		src := string(r.Source)
		if r.Reference != "" {
			src += ": " + r.Reference
		}
		fmt.Fprintf(&b, "- **Enforces:** %s\n- **Acknowledgeable:** %s\n", src, yesNo(r.Acknowledgeable))
		im := r.Implementation()
		reporters := make([]string, len(im.Functions))
		for i, f := range im.Functions {
			reporters[i] = "`" + strings.Replace(f, " (", "` (", 1)
		}
		fmt.Fprintf(&b, "- **Reported by:** %s\n- **Fixtures:** %s\n", strings.Join(reporters, "; "), im.Fixture)
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
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

// sarifLog is a SARIF 2.1.0 log: one run whose driver lists every rule of
// the registry, one result per finding with its rule, level and a physical
// location (the template, the property's line and column); an acknowledged
// finding carries a suppression with its reason.
func sarifLog(findings erasurecheck.Findings) sarif.Log {
	rules := erasurecheck.Rules()
	index := map[string]int{}
	driver := sarif.Driver{Name: "erasurectl check", Version: toolVersion(), InformationURI: "https://github.com/linn-cloud/erasure-channel", Rules: []sarif.Rule{}}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarif.Rule{ID: r.ID, Name: r.Name, ShortDescription: sarif.Message{Text: r.Title},
			FullDescription: sarif.Message{Text: r.Why + " Fix: " + r.Fix}, HelpURI: r.HelpURI(),
			DefaultConfiguration: sarif.Configuration{Level: sarifLevel(r.Severity)}})
	}
	results := []sarif.Result{}
	for _, f := range findings {
		res := sarif.Result{Level: "error", Message: sarif.Message{Text: f.String()}}
		if f.Rule != nil {
			i := index[f.Rule.ID]
			res.RuleID, res.RuleIndex, res.Level = f.Rule.ID, &i, sarifLevel(f.Rule.Severity)
		}
		loc := sarif.Location{}
		if f.Template != "" {
			loc.PhysicalLocation = &sarif.PhysicalLocation{ArtifactLocation: sarif.ArtifactLocation{URI: artifactURI(f.Template)}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarif.Region{StartLine: f.Line, StartColumn: f.Column}
			}
		}
		if f.LogicalID != "" {
			name := f.LogicalID
			if len(f.Property) > 0 {
				name += "." + f.PropertyPath()
			}
			loc.LogicalLocations = []sarif.LogicalLocation{{Name: name, FullyQualifiedName: f.Stack + "/" + name, Kind: "resource"}}
		}
		if f.ConstructPath != "" {
			loc.LogicalLocations = append(loc.LogicalLocations, sarif.LogicalLocation{Name: f.ConstructPath, FullyQualifiedName: f.ConstructPath, Kind: "module"})
		}
		res.Locations = []sarif.Location{loc}
		if k := f.Acknowledged; k != nil {
			kind := "external"
			if k.Source == "cloud assembly" {
				kind = "inSource"
			}
			res.Suppressions = []sarif.Suppression{{Kind: kind, Status: "accepted", Justification: k.Reason}}
		}
		results = append(results, res)
	}
	return sarif.Log{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarif.Run{{Tool: sarif.Tool{Driver: driver}, Results: results}}}
}

// artifactURI is a template's path as SARIF takes it: relative paths as
// relative references, absolute ones as file URIs (SARIF1004).
func artifactURI(path string) string {
	if filepath.IsAbs(path) {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	}
	return (&url.URL{Path: filepath.ToSlash(path)}).String()
}

// sarifLevel is a severity as SARIF names it.
func sarifLevel(s erasurecheck.Severity) string {
	if s == erasurecheck.SeverityWarning {
		return "warning"
	}
	return "error"
}

// boundaries reads --boundary ARN=FILE.
func (c *Cmd) boundaries() (map[string]any, error) {
	out := map[string]any{}
	for _, e := range c.Boundary {
		arn, file, ok := strings.Cut(e, "=")
		if !ok || !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":policy/") || file == "" {
			return nil, Fail(ExitUsage, "--boundary takes ARN=FILE: a managed policy's ARN (arn:aws:iam::ACCOUNT:policy/NAME) and its document")
		}
		doc, err := readPolicyFile("boundary", file)
		if err != nil {
			return nil, err
		}
		out[arn] = doc
	}
	return out, nil
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
	// OrganizationID is the organisation the app's accounts are in.
	OrganizationID string `name:"organization-id" placeholder:"o-..." help:"The AWS organisation every account of the app is in (o-…): judged as aws:PrincipalOrgID, aws:ResourceOrgID and aws:SourceOrgID, so that data perimeters are decided. Without it a condition on them leaves the call undecided (EC326, which may be acknowledged)."`
}

// Organization is the --organization-id given, checked.
func (f OrgPolicyFlags) Organization() (string, error) {
	if f.OrganizationID != "" && !erasurecheck.IsOrganizationID(f.OrganizationID) {
		return "", Fail(ExitUsage, "--organization-id takes an organisation's id: o- and 10 to 32 lower-case letters or digits")
	}
	return f.OrganizationID, nil
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
			doc, err := readPolicyFile(flag, file)
			if err != nil {
				return nil, err
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

// readPolicyFile reads a policy document for --flag.
func readPolicyFile(flag, file string) (map[string]any, error) {
	b, err := bounded.ReadFile(file, maxOrgPolicyBytes)
	if err != nil {
		return nil, Fail(ExitUsage, "--%s: %v", flag, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc["Statement"] == nil {
		return nil, Fail(ExitUsage, "--%s: %s is not a policy document (JSON with a Statement)", flag, filepath.Base(file))
	}
	return doc, nil
}
