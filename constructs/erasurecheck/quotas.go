package erasurecheck

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract/timing"
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
			doc := r.Properties["PolicyDocument"]
			if r.Type == "AWS::KMS::Key" {
				doc = r.Properties["KeyPolicy"]
			}
			if doc == nil {
				continue
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if enc.Encode(a.lowerBound(t, doc)) != nil {
				continue
			}
			size := len(strings.TrimSuffix(b.String(), "\n"))
			if v, ok := doc.(string); ok { // a policy given as a JSON string
				size = len(v)
			}
			for _, p := range iameval.QuotaProblems(r.Type, size, a.policy(t, doc, id)) {
				out = append(out, Finding{Problem: timing.Problem{Path: "Policy[" + t.Stack + "/" + id + "].quota", Type: timing.Invalid,
					Detail: p + ": CloudFormation's deploy fails on it; split the policy or grant through identity policies"}, Stack: t.Stack, Template: t.Path, LogicalID: id})
			}
		}
	}
	return out
}

// lowerBound is v with every intrinsic rendered to its literal where it
// has one, else to "": the shortest policy deploy could send.
func (a *assembly) lowerBound(t *template, v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = a.lowerBound(t, e)
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			for k := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					if s := a.Ident(t, x); !strings.HasPrefix(s, "res:") {
						return s
					}
					return ""
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = a.lowerBound(t, e)
		}
		return out
	}
	return v
}
