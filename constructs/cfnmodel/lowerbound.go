package cfnmodel

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// LowerBound is v with every intrinsic rendered to its literal where it
// has one, else to the shortest value deploy can give it (a role's unique
// id, an account id: deployedLowerBound), else to "": the shortest document
// deploy could send.
func (a *Assembly) LowerBound(t *Template, v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = a.LowerBound(t, e)
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			if s, ok := deployedLowerBound(x); ok {
				return s
			}
			if j := iameval.ListOf(x["Fn::Join"]); len(j) == 2 {
				if sep, ok := j[0].(string); ok {
					if parts, ok := j[1].([]any); ok {
						out := make([]string, 0, len(parts))
						for _, p := range parts {
							s, _ := a.LowerBound(t, p).(string)
							out = append(out, s)
						}
						return strings.Join(out, sep)
					}
				}
			}
			for k := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					if s := a.Ident(t, x); !IsResourceIdent(s) {
						return s
					}
					return ""
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = a.LowerBound(t, e)
		}
		return out
	}
	return v
}

// deployedLowerBound is a placeholder as long as the shortest value deploy
// gives an intrinsic whose value only deploy knows but whose length it
// fixes: a role's unique id (contract.RoleIDDeployedBytes), an account id, a
// partition; ok is false for any other.
func deployedLowerBound(x map[string]any) (string, bool) {
	if ga := iameval.ListOf(x["Fn::GetAtt"]); len(ga) == 2 && ga[1] == "RoleId" {
		return strings.Repeat("A", contract.RoleIDDeployedBytes), true
	}
	if ga, ok := x["Fn::GetAtt"].(string); ok && strings.HasSuffix(ga, ".RoleId") {
		return strings.Repeat("A", contract.RoleIDDeployedBytes), true
	}
	switch x["Ref"] {
	case "AWS::AccountId":
		return "000000000000", true
	case "AWS::Partition":
		return "aws", true
	case "AWS::Region":
		return "us-east-1", true // the shortest region names are 9 characters
	}
	return "", false
}
