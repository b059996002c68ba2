package erasurecheck

import (
	"encoding/json"
	"testing"
)

func docStatements(t *testing.T, doc string) []statement {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return statements(v)
}

// TestEvaluate: IAM's decision logic, one rule per row, on literal policies.
func TestEvaluate(t *testing.T) {
	const (
		queue     = "arn:aws:sqs:eu-west-1:111111111111:q"
		key       = "arn:aws:kms:eu-west-1:111111111111:key/k"
		role111   = "arn:aws:iam::111111111111:role/handler"
		role222   = "arn:aws:iam::222222222222:role/handler"
		topic     = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
		sendAll   = `{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}`
		everyKMS  = `{"Statement":[{"Effect":"Allow","Action":"kms:*","Resource":"*"}]}`
		noPolicy  = `{"Statement":[]}`
		rootOf111 = `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111111111111:root"},"Action":"kms:*","Resource":"*"}]}`
	)
	cases := []struct {
		name      string
		principal principal
		identity  string
		action    string
		resource  target
		policy    string
		ctx       map[string][]string
		want      Decision
	}{
		{"same account: the identity policy suffices", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Allowed},
		{"same account: nothing allows", principal{account: "111111111111", aliases: []string{role111}}, noPolicy,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Denied},
		{"same account: the resource policy naming the role suffices", principal{account: "111111111111", aliases: []string{role111}}, noPolicy,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"` + role111 + `"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Allowed},
		{"same account: a resource policy naming the account delegates to the identity policy", principal{account: "111111111111", aliases: []string{role111}}, noPolicy,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Denied},
		{"another account: identity alone is not enough", principal{account: "222222222222", aliases: []string{role222}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Denied},
		{"another account: both policies", principal{account: "222222222222", aliases: []string{role222}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Allowed},
		{"an explicit deny wins, ArnNotLike on the principal", principal{account: "111111111111", aliases: []string{"arn:aws:iam::111111111111:role/ci"}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnNotLike":{"aws:PrincipalArn":["` + role111 + `"]}}}]}`, nil, Denied},
		{"the deny spares the roster's role", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnNotLike":{"aws:PrincipalArn":["arn:aws:iam::*:role/hand*"]}}}]}`, nil, Allowed},
		{"a key policy delegating to the account lets the identity policy decide", principal{account: "111111111111", aliases: []string{role111}}, everyKMS,
			"kms:Decrypt", target{aliases: []string{key}, account: "111111111111", isKey: true}, rootOf111, nil, Allowed},
		{"a key policy that neither names nor delegates denies, whatever the identity policy", principal{account: "111111111111", aliases: []string{role111}}, everyKMS,
			"kms:Decrypt", target{aliases: []string{key}, account: "111111111111", isKey: true},
			`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::333333333333:root"},"Action":"kms:*","Resource":"*"}]}`, nil, Denied},
		{"a key policy delegating to the account, with no identity policy, denies", principal{account: "111111111111", aliases: []string{role111}}, noPolicy,
			"kms:Decrypt", target{aliases: []string{key}, account: "111111111111", isKey: true}, rootOf111, nil, Denied},
		{"a service from the right topic", principal{service: "sns.amazonaws.com"}, "",
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + queue + `","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
			map[string][]string{"aws:sourcearn": {topic}}, Allowed},
		{"a service from another topic", principal{service: "sns.amazonaws.com"}, "",
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + queue + `","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
			map[string][]string{"aws:sourcearn": {"arn:aws:sns:eu-west-1:111111111111:other"}}, Denied},
		{"a deny on {AWS: *} reaches a service too (an absent key satisfies the negated operator)", principal{service: "sns.amazonaws.com"}, "",
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"},` +
				`{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"sqs:*","Resource":"*","Condition":{"ArnNotEquals":{"aws:PrincipalArn":"` + role111 + `"}}}]}`,
			map[string][]string{"aws:sourcearn": {topic}}, Denied},
		{"a negated operator holds for an absent key", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringNotEquals":{"aws:SourceVpc":"vpc-1"}}}]}`, nil, Denied},
		{"IfExists holds for an absent key", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringEqualsIfExists":{"aws:SourceVpc":"vpc-1"}}}]}`, nil, Denied},
		{"the TLS deny does not reach a TLS request", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"sqs:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
			map[string][]string{"aws:securetransport": {"true"}}, Allowed},
		{"Null: the key must be absent", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"Null":{"aws:SourceArn":"true"}}}]}`, nil, Denied},
		{"NotAction covers every other action", principal{account: "111111111111", aliases: []string{role111}},
			`{"Statement":[{"Effect":"Allow","NotAction":"sqs:ReceiveMessage","Resource":"*"}]}`,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Allowed},
		{"NotResource reaches every other resource", principal{account: "111111111111", aliases: []string{role111}},
			`{"Statement":[{"Effect":"Allow","Action":"sqs:*","NotResource":"` + queue + `"}]}`,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Denied},
		{"a wildcard resource", principal{account: "111111111111", aliases: []string{role111}},
			`{"Statement":[{"Effect":"Allow","Action":"SQS:Send*","Resource":"arn:aws:sqs:*:111111111111:*"}]}`,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Allowed},
		{"an operator the evaluator does not know, on the only allow", principal{account: "111111111111", aliases: []string{role111}},
			`{"Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"}}}]}`,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Undecided},
		{"an operator the evaluator does not know, on a deny", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`, nil, Undecided},
		{"an Allow with NotPrincipal reaches every principal but those listed", principal{account: "111111111111", aliases: []string{role111}}, noPolicy,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Allowed},
		{"a Deny with NotPrincipal spares the principal it lists", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role111 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Allowed},
		{"a Deny with NotPrincipal reaches every other principal", principal{account: "111111111111", aliases: []string{"arn:aws:iam::111111111111:role/ci"}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role111 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
		{"a NotPrincipal Deny of another action decides nothing here", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:TagQueue","Resource":"*"}]}`, nil, Allowed},
		{"NotPrincipal in an identity policy cannot be judged", principal{account: "111111111111", aliases: []string{role111}},
			`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:*","Resource":"*"}]}`,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"}, noPolicy, nil, Undecided},
		{"[ is no character class in IAM: a literal that matches nothing here", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::111111111111:role/[h]andler"}}}]}`, nil, Allowed},
		{"an ARN pattern's wildcard stays within its field", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*/handler"}}}]}`, nil, Allowed},
		{"an ARN pattern per field", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/hand?er"}}}]}`, nil, Denied},
		{"a statement with both Action and NotAction is no valid statement", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111"},
			`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:TagQueue","NotAction":"sqs:SendMessage","Resource":"*"}]}`, nil, Undecided},
		{"two resource policies on one queue cannot be judged", principal{account: "111111111111", aliases: []string{role111}}, sendAll,
			"sqs:SendMessage", target{aliases: []string{queue}, account: "111111111111", conflict: "two queue policies"}, noPolicy, nil, Undecided},
	}
	a := &assembly{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.principal
			if tc.identity != "" {
				p.identity = docStatements(t, tc.identity)
			}
			r := tc.resource
			r.policy = docStatements(t, tc.policy)
			ctx := map[string][]string{}
			for k, v := range tc.ctx {
				ctx[k] = v
			}
			if p.service == "" {
				ctx["aws:principalarn"] = p.aliases
			}
			got := a.evaluate(request{p: &p, action: tc.action, r: &r, ctx: ctx})
			if got.Decision != tc.want {
				t.Errorf("got %s (%s), want %s", got.Decision, got.Because, tc.want)
			}
		})
	}
}
