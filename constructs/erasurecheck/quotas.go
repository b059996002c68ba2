package erasurecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// checkPolicyQuotas refuses every resource policy of the app that its
// service would refuse at deploy (iameval.Quotas): too many bytes,
// statements, principals or actions in a statement. A value only deploy
// knows counts as empty, so the size is a lower bound and a line is certain.
func (a *assembly) checkPolicyQuotas() Findings {
	var out Findings
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			r := t.Resources[id]
			if _, ok := iameval.Quotas[r.Type]; !ok {
				continue
			}
			size, stmts, ok := a.policySize(t, id, r)
			if !ok {
				continue
			}
			for _, p := range iameval.QuotaProblems(r.Type, size, stmts) {
				f := findings{t: t}
				f.add(rulePolicyQuota, id, problem.Root("Policy").Key(t.Stack+"/"+id).Child("quota"), nil, "%s: CloudFormation's deploy fails on it; split the policy or grant through identity policies", p)
				out = append(out, f.out...)
			}
		}
	}
	return out
}

// policySize is the size of resource r's policy at its lower bound, and its
// statements; ok is false when it sets none.
func (a *assembly) policySize(t *template, id string, r cfnmodel.Resource) (int, []iameval.Statement, bool) {
	at := cfnmodel.ResourceID{Template: t, ID: id}
	if got, ok := a.sizes[at]; ok {
		return got.size, got.stmts, got.ok
	}
	size, stmts, ok := a.measurePolicy(t, id, r)
	if a.sizes == nil {
		a.sizes = map[cfnmodel.ResourceID]policySized{}
	}
	a.sizes[at] = policySized{size, stmts, ok}
	return size, stmts, ok
}

// measurePolicy is policySize, measured.
func (a *assembly) measurePolicy(t *template, id string, r cfnmodel.Resource) (int, []iameval.Statement, bool) {
	doc := r.Properties["PolicyDocument"]
	if r.Type == "AWS::KMS::Key" {
		doc = r.Properties["KeyPolicy"]
	}
	if doc == nil {
		return 0, nil, false
	}
	lower := a.LowerBound(t, doc)
	size, measured := jsonSize(lower)
	if !measured {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(lower) != nil {
			return 0, nil, false
		}
		size = len(strings.TrimSuffix(b.String(), "\n"))
	}
	if v, ok := doc.(string); ok { // a policy given as a JSON string
		size = len(v)
	}
	return size, a.policy(t, doc, id), true
}

// A quota of CloudFormation or of a service that the check models besides
// the resource policies' (iameval.Quotas): each with where AWS documents it.
type quota struct {
	Limit  int
	Source string
}

// serviceQuotas are the quotas a resource of the app meets at deploy,
// besides its resource policy's.
var serviceQuotas = struct {
	LambdaEnvironmentBytes, DashboardWidgets                                 quota
	TemplateResources, TemplateOutputs, TemplateParameters, TemplateMappings quota
	TemplateBytes, SSMParameterBytes                                         quota
}{
	LambdaEnvironmentBytes: quota{4096, "AWS Lambda quotas: environment variables, 4 KB in all"},
	DashboardWidgets:       quota{500, "Amazon CloudWatch quotas: widgets per dashboard"},
	TemplateResources:      quota{500, "AWS CloudFormation quotas: resources per template"},
	TemplateOutputs:        quota{200, "AWS CloudFormation quotas: outputs per template"},
	TemplateParameters:     quota{200, "AWS CloudFormation quotas: parameters per template"},
	TemplateMappings:       quota{200, "AWS CloudFormation quotas: mappings per template"},
	TemplateBytes:          quota{1000000, "AWS CloudFormation quotas: template body size in an S3 object, 1 MB"},
	SSMParameterBytes:      quota{contract.SSMParameterValueMaxBytes, "AWS Systems Manager quotas: parameter value size, standard tier"},
}

// QuotaUse is how much of one quota one resource or template uses, counting
// each value only deploy knows at the least it can be.
type QuotaUse struct {
	Quota  string // e.g. "AWS::SQS::QueuePolicy bytes", "Lambda environment bytes"
	Limit  int
	Source string // where AWS documents the quota
	Used   int
	Path   string // the finding's path: Policy[<stack>/<id>], Template[<stack>], …
	Stack  string
	ID     string // the resource's logical id, "" for a template's own quota

	t    *template
	what string // what to do past it
}

// QuotaUsage is every quota the check models (resource policies, Lambda
// environments, dashboards, SSM parameters, CloudFormation templates), used
// by every resource and template of cloud assembly directories or templates.
func QuotaUsage(paths []string) ([]QuotaUse, error) {
	a, err := readPaths(paths)
	if err != nil {
		return nil, err
	}
	return a.quotaUses(), nil
}

// quotaUses measures every quota of every template and resource.
func (a *assembly) quotaUses() []QuotaUse {
	var out []QuotaUse
	add := func(t *template, id, path, name string, used int, q quota, what string) {
		out = append(out, QuotaUse{Quota: name, Limit: q.Limit, Source: q.Source, Used: used, Path: path, Stack: t.Stack, ID: id, t: t, what: what})
	}
	tq := serviceQuotas
	for _, t := range a.Templates {
		tp := "Template[" + t.Stack + "]"
		add(t, "", tp+".resources", "CloudFormation resources per template", len(t.Resources), tq.TemplateResources, "split the stack (a store's own stack, nested stacks)")
		add(t, "", tp+".outputs", "CloudFormation outputs per template", len(t.Outputs), tq.TemplateOutputs, "split the stack")
		add(t, "", tp+".parameters", "CloudFormation parameters per template", len(t.Parameters), tq.TemplateParameters, "split the stack")
		add(t, "", tp+".mappings", "CloudFormation mappings per template", len(t.Mappings), tq.TemplateMappings, "split the stack")
		add(t, "", tp+".size", "CloudFormation template bytes", t.Bytes, tq.TemplateBytes, "split the stack")
		for _, id := range t.IDs() {
			r := t.Resources[id]
			switch r.Type {
			case "AWS::Lambda::Function":
				vars, _ := cfnmodel.Dig(r.Properties, "Environment", "Variables").(map[string]any)
				size := 0
				for k, v := range vars {
					size += len(k) + len(a.lowerBoundString(t, v))
				}
				add(t, id, "Function["+t.Stack+"/"+id+"].environment", "Lambda environment bytes", size, tq.LambdaEnvironmentBytes,
					"Lambda refuses the function; keep data that grows (a roster) in a parameter, a table or an object read at start")
			case "AWS::CloudWatch::Dashboard":
				add(t, id, "Dashboard["+t.Stack+"/"+id+"].widgets", "CloudWatch widgets per dashboard", dashboardWidgets(a.lowerBoundString(t, r.Properties["DashboardBody"])), tq.DashboardWidgets,
					"CloudWatch refuses the dashboard; show stores through search expressions, or split it into pages")
			case "AWS::SSM::Parameter":
				add(t, id, "Parameter["+t.Stack+"/"+id+"].value", "SSM parameter bytes", len(a.lowerBoundString(t, r.Properties["Value"])), tq.SSMParameterBytes,
					"Systems Manager refuses the parameter; split it into pages")
			}
			if q, ok := iameval.Quotas[r.Type]; ok {
				if size, stmts, ok := a.policySize(t, id, r); ok {
					pp := "Policy[" + t.Stack + "/" + id + "].quota"
					if q.Bytes > 0 {
						add(t, id, pp, r.Type+" bytes", size, quota{q.Bytes, q.Source}, "")
					}
					if q.Statements > 0 {
						add(t, id, pp, r.Type+" statements", len(stmts), quota{q.Statements, q.Source}, "")
					}
					if q.Conditions > 0 {
						add(t, id, pp, r.Type+" conditions", iameval.ConditionCount(stmts), quota{q.Conditions, q.Source}, "")
					}
				}
			}
		}
	}
	return out
}

// checkServiceQuotas refuses every template, function, dashboard and
// parameter of the app that CloudFormation or its service would refuse at
// deploy for its size, counting each value only deploy knows at the least
// it can be (LowerBound): a line is certain. (Resource policies:
// checkPolicyQuotas.)
func (a *assembly) checkServiceQuotas() Findings {
	var out Findings
	for _, u := range a.quotaUses() {
		if u.Used <= u.Limit || strings.HasPrefix(u.Path, "Policy[") {
			continue
		}
		f := findings{t: u.t}
		f.add(ruleServiceQuota, u.ID, problem.Parse(u.Path), nil, "%s: %d, past the %d AWS accepts (%s): %s", u.Quota, u.Used, u.Limit, u.Source, u.what)
		out = append(out, f.out...)
	}
	return out
}

// lowerBoundString is v rendered at its lower bound, as a string.
func (a *assembly) lowerBoundString(t *template, v any) string {
	switch x := a.LowerBound(t, v).(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// dashboardWidgets counts a dashboard body's widgets: its "widgets" list
// where the body parses (tokens rendered at their lower bound can break the
// JSON), else each widget's "type" member.
func dashboardWidgets(body string) int {
	var doc struct {
		Widgets []json.RawMessage `json:"widgets"`
	}
	if json.Unmarshal([]byte(body), &doc) == nil {
		return len(doc.Widgets)
	}
	return strings.Count(body, `"type":"`)
}

// The rules this file reports.
var (
	rulePolicyQuota = declare(Rule{ID: "EC602", Name: "ResourcePolicyQuota", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html",
		Title: "Every resource policy fits its service's size and statement quotas",
		Why:   "CloudFormation's deploy fails on a policy past its quota.",
		Fix:   "Split the policy, or grant through identity policies."})
	ruleServiceQuota = declare(Rule{ID: "EC603", Name: "ServiceQuota", Type: problem.Invalid, Source: FromAWS, Reference: "erasurectl check --quotas lists each quota with its AWS source",
		Title: "Every template, function, dashboard and parameter fits the quota AWS applies to it",
		Why:   "CloudFormation or the service refuses it at deploy (a template past 1 MB or 500 resources, a Lambda environment past 4 KB, ...).",
		Fix:   "Split the stack or shrink the value; erasurectl check --quotas shows the largest use of each quota."})
)
