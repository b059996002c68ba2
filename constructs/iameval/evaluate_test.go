package iameval

import (
	"encoding/json"
	"strings"
	"testing"
)

func docStatements(t *testing.T, doc string) []Statement {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return Parse(v, nil, "")
}

// The principals, resources and policies of the Evaluate cases.
const (
	queue        = "arn:aws:sqs:eu-west-1:111111111111:q"
	key          = "arn:aws:kms:eu-west-1:111111111111:key/k"
	role111      = "arn:aws:iam::111111111111:role/handler"
	role222      = "arn:aws:iam::222222222222:role/handler"
	topic        = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
	sendAll      = `{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}`
	everyKMS     = `{"Statement":[{"Effect":"Allow","Action":"kms:*","Resource":"*"}]}`
	noPolicy     = `{"Statement":[]}`
	subscribeAll = `{"Statement":[{"Effect":"Allow","Action":"sns:Subscribe","Resource":"*"}]}`
	ownQueueOnly = `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sns:Subscribe","Resource":"*"},{"Effect":"Deny","Principal":"*","Action":"sns:Subscribe","Resource":"*","Condition":{"StringNotLike":{"sns:Endpoint":"arn:aws:sqs:*:${aws:PrincipalAccount}:erasure-requests-*"}}}]}`
	rootOf111    = `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111111111111:root"},"Action":"kms:*","Resource":"*"}]}`
)

// evaluateCase is one request to Evaluate and the decision it must get.
type evaluateCase struct {
	name      string
	principal Principal
	identity  string
	action    string
	resource  Resource
	policy    string
	ctx       map[string][]string
	want      Decision
}

// evaluateCases are TestEvaluate's requests, one for each rule of IAM's
// evaluation the evaluator models.
var evaluateCases = []evaluateCase{
	{"same Account: the identity policy suffices", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Allowed},
	{"same Account: nothing allows", Principal{Account: "111111111111", Aliases: []string{role111}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Denied},
	{"same Account: the resource policy naming the role suffices", Principal{Account: "111111111111", Aliases: []string{role111}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"` + role111 + `"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Allowed},
	{"same Account: a resource policy naming the account delegates to the identity policy", Principal{Account: "111111111111", Aliases: []string{role111}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Denied},
	{"another Account: identity alone is not enough", Principal{Account: "222222222222", Aliases: []string{role222}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Denied},
	{"another Account: both policies", Principal{Account: "222222222222", Aliases: []string{role222}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, nil, Allowed},
	{"an explicit deny wins, ArnNotLike on the principal", Principal{Account: "111111111111", Aliases: []string{"arn:aws:iam::111111111111:role/ci"}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnNotLike":{"aws:PrincipalArn":["` + role111 + `"]}}}]}`, nil, Denied},
	{"the deny spares the roster's role", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnNotLike":{"aws:PrincipalArn":["arn:aws:iam::*:role/hand*"]}}}]}`, nil, Allowed},
	{"a key policy delegating to the account lets the identity policy decide", Principal{Account: "111111111111", Aliases: []string{role111}}, everyKMS,
		"kms:Decrypt", Resource{Aliases: []string{key}, Account: "111111111111", IsKey: true}, rootOf111, nil, Allowed},
	{"a key policy that neither names nor delegates denies, whatever the identity policy", Principal{Account: "111111111111", Aliases: []string{role111}}, everyKMS,
		"kms:Decrypt", Resource{Aliases: []string{key}, Account: "111111111111", IsKey: true},
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::333333333333:root"},"Action":"kms:*","Resource":"*"}]}`, nil, Denied},
	{"a key policy delegating to the account, with no identity policy, denies", Principal{Account: "111111111111", Aliases: []string{role111}}, noPolicy,
		"kms:Decrypt", Resource{Aliases: []string{key}, Account: "111111111111", IsKey: true}, rootOf111, nil, Denied},
	{"a service from the right topic", Principal{Service: "sns.amazonaws.com"}, "",
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + queue + `","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
		map[string][]string{"aws:sourcearn": {topic}}, Allowed},
	{"a service from another topic", Principal{Service: "sns.amazonaws.com"}, "",
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + queue + `","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
		map[string][]string{"aws:sourcearn": {"arn:aws:sns:eu-west-1:111111111111:other"}}, Denied},
	{"across an opt-in region SNS presents its regional principal: the global one is not it", Principal{Service: "sns.amazonaws.com", Region: "eu-west-1"}, "",
		"sqs:SendMessage", Resource{Aliases: []string{"arn:aws:sqs:me-south-1:111111111111:q"}, Account: "111111111111", Region: "me-south-1"},
		`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
		map[string][]string{"aws:sourcearn": {topic}}, Denied},
	{"across an opt-in region the regional principal is let in", Principal{Service: "sns.amazonaws.com", Region: "eu-west-1"}, "",
		"sqs:SendMessage", Resource{Aliases: []string{"arn:aws:sqs:me-south-1:111111111111:q"}, Account: "111111111111", Region: "me-south-1"},
		`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.me-south-1.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`,
		map[string][]string{"aws:sourcearn": {topic}}, Allowed},
	{"a resource policy outside what was read: the identity side allows, another account", Principal{Account: "222222222222", Aliases: []string{role222}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111", PolicyUnknown: true}, noPolicy, nil, Undecided},
	{"a resource policy outside what was read: no identity allow, another account", Principal{Account: "222222222222", Aliases: []string{role222}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111", PolicyUnknown: true}, noPolicy, nil, Denied},
	{"a resource policy outside what was read: the identity allows, same account", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111", PolicyUnknown: true}, noPolicy, nil, Allowed},
	{"a key policy outside what was read: no identity allow", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"kms:Decrypt", Resource{Aliases: []string{key}, Account: "111111111111", IsKey: true, PolicyUnknown: true}, noPolicy, nil, Denied},
	{"a deny on {AWS: *} reaches a service too (an absent key satisfies the negated operator)", Principal{Service: "sns.amazonaws.com"}, "",
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"},` +
			`{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"sqs:*","Resource":"*","Condition":{"ArnNotEquals":{"aws:PrincipalArn":"` + role111 + `"}}}]}`,
		map[string][]string{"aws:sourcearn": {topic}}, Denied},
	{"a negated operator holds for an absent key", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringNotEquals":{"aws:SourceAccount":"111111111111"}}}]}`, nil, Denied},
	{"a negated operator over a key the check cannot know is undecided", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringNotEquals":{"aws:SourceVpc":"vpc-1"}}}]}`, nil, Undecided},
	{"IfExists holds for an absent key", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringEqualsIfExists":{"aws:SourceArn":"arn:aws:sns:eu-west-1:111111111111:t"}}}]}`, nil, Denied},
	{"the TLS deny does not reach a TLS request", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"sqs:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
		map[string][]string{"aws:securetransport": {"true"}}, Allowed},
	{"Null: the key must be absent", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"Null":{"aws:SourceArn":"true"}}}]}`, nil, Denied},
	{"NotAction covers every other action", Principal{Account: "111111111111", Aliases: []string{role111}},
		`{"Statement":[{"Effect":"Allow","NotAction":"sqs:ReceiveMessage","Resource":"*"}]}`,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Allowed},
	{"NotResource reaches every other resource", Principal{Account: "111111111111", Aliases: []string{role111}},
		`{"Statement":[{"Effect":"Allow","Action":"sqs:*","NotResource":"` + queue + `"}]}`,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Denied},
	{"a wildcard resource", Principal{Account: "111111111111", Aliases: []string{role111}},
		`{"Statement":[{"Effect":"Allow","Action":"SQS:Send*","Resource":"arn:aws:sqs:*:111111111111:*"}]}`,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Allowed},
	{"an operator the evaluator does not know, on the only allow", Principal{Account: "111111111111", Aliases: []string{role111}},
		`{"Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"}}}]}`,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Undecided},
	{"ForAllValues: every value of the key must match, one does not", Principal{Account: "111111111111", Aliases: []string{role111, "arn:aws:iam::111111111111:role/other"}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ForAllValues:ArnEquals":{"aws:PrincipalArn":["` + role111 + `"]}}}]}`, nil, Denied},
	{"ForAnyValue: one value of the key suffices", Principal{Account: "111111111111", Aliases: []string{role111, "arn:aws:iam::111111111111:role/other"}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*","Condition":{"ForAnyValue:ArnEquals":{"aws:PrincipalArn":["` + role111 + `"]}}}]}`, nil, Allowed},
	{"an operator the evaluator does not know beside a key that fails: the deny does not apply", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"Bool":{"aws:SecureTransport":"false"}}}]}`,
		map[string][]string{"aws:securetransport": {"true"}}, Allowed},
	{"an operator the evaluator does not know, on a deny", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`, nil, Undecided},
	{"an Allow with NotPrincipal reaches every principal but those listed", Principal{Account: "111111111111", Aliases: []string{role111}}, noPolicy,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Allowed},
	{"a Deny with NotPrincipal naming a role's ARN alone still denies its sessions", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role111 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
	{"a Deny with NotPrincipal naming the role, its account but not the session denies it", Principal{Account: "111111111111", Aliases: []string{role111}, Session: "erasure-handler-space"}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["` + role111 + `","arn:aws:iam::111111111111:root"]},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
	{"a Deny with NotPrincipal spares a role's session named with its role and account", Principal{Account: "111111111111", Aliases: []string{role111}, Session: "erasure-handler-space"}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["` + role111 + `","arn:aws:iam::111111111111:root","` + strings.Replace(strings.Replace(role111, ":iam:", ":sts:", 1), ":role/", ":assumed-role/", 1) + `/erasure-handler-space"]},"Action":"sqs:*","Resource":"*"}]}`, nil, Allowed},
	// IAM user guide, "AWS JSON policy elements: NotPrincipal": "The
	// NotPrincipal element with a Deny effect will always deny any IAM
	// principal that has a permissions boundary policy attached,
	// regardless of the values specified in the NotPrincipal element."
	{"a Deny with NotPrincipal denies a principal with a permissions boundary, however it is named", Principal{Account: "111111111111", Aliases: []string{role111}, Session: "erasure-handler-space",
		Boundary: &Boundary{Statements: Parse(map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}, nil, "boundary")}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["` + role111 + `","arn:aws:iam::111111111111:root","` + strings.Replace(strings.Replace(role111, ":iam:", ":sts:", 1), ":role/", ":assumed-role/", 1) + `/erasure-handler-space"]},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
	{"a Deny with NotPrincipal spares a user named with its account", Principal{Account: "111111111111", Aliases: []string{"arn:aws:iam::111111111111:user/bob"}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["arn:aws:iam::111111111111:user/bob","111111111111"]},"Action":"sqs:*","Resource":"*"}]}`, nil, Allowed},
	{"a Deny with NotPrincipal naming a user without its account denies it", Principal{Account: "111111111111", Aliases: []string{"arn:aws:iam::111111111111:user/bob"}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111111111111:user/bob"},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
	{"a Deny with NotPrincipal reaches every other principal", Principal{Account: "111111111111", Aliases: []string{"arn:aws:iam::111111111111:role/ci"}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role111 + `"},"Action":"sqs:*","Resource":"*"}]}`, nil, Denied},
	{"a NotPrincipal Deny of another action decides nothing here", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:TagQueue","Resource":"*"}]}`, nil, Allowed},
	{"NotPrincipal in an identity policy cannot be judged", Principal{Account: "111111111111", Aliases: []string{role111}},
		`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"` + role222 + `"},"Action":"sqs:*","Resource":"*"}]}`,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"}, noPolicy, nil, Undecided},
	{"[ is no character class in IAM: a literal that matches nothing here", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::111111111111:role/[h]andler"}}}]}`, nil, Allowed},
	{"an ARN pattern's wildcard stays within its field", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*/handler"}}}]}`, nil, Allowed},
	{"an ARN pattern per field", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/hand?er"}}}]}`, nil, Denied},
	{"a statement with both Action and NotAction is no valid statement", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:TagQueue","NotAction":"sqs:SendMessage","Resource":"*"}]}`, nil, Undecided},
	{"two resource policies on one queue cannot be judged", Principal{Account: "111111111111", Aliases: []string{role111}}, sendAll,
		"sqs:SendMessage", Resource{Aliases: []string{queue}, Account: "111111111111", Conflict: "two queue policies"}, noPolicy, nil, Undecided},
	// Policy variables in a condition's value (IAM policy elements: variables and tags): rendered from
	// the request; one the request cannot resolve makes the statement apply to nothing.
	{"a policy variable: a store queue of the subscriber's own account", Principal{Account: "222222222222", Aliases: []string{role222}}, subscribeAll,
		"sns:Subscribe", Resource{Aliases: []string{topic}, Account: "111111111111"}, ownQueueOnly,
		map[string][]string{"aws:principalaccount": {"222222222222"}, "sns:endpoint": {"arn:aws:sqs:eu-west-1:222222222222:erasure-requests-a"}}, Allowed},
	{"a policy variable: a store queue of another account", Principal{Account: "222222222222", Aliases: []string{role222}}, subscribeAll,
		"sns:Subscribe", Resource{Aliases: []string{topic}, Account: "111111111111"}, ownQueueOnly,
		map[string][]string{"aws:principalaccount": {"222222222222"}, "sns:endpoint": {"arn:aws:sqs:eu-west-1:333333333333:erasure-requests-a"}}, Denied},
	{"a policy variable: another queue of the subscriber's own account", Principal{Account: "222222222222", Aliases: []string{role222}}, subscribeAll,
		"sns:Subscribe", Resource{Aliases: []string{topic}, Account: "111111111111"}, ownQueueOnly,
		map[string][]string{"aws:principalaccount": {"222222222222"}, "sns:endpoint": {"arn:aws:sqs:eu-west-1:222222222222:mine"}}, Denied},
	{"a policy variable the request cannot resolve: the Deny applies to nothing", Principal{Account: "222222222222", Aliases: []string{role222}}, subscribeAll,
		"sns:Subscribe", Resource{Aliases: []string{topic}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sns:Subscribe","Resource":"*"},{"Effect":"Deny","Principal":"*","Action":"sns:Subscribe","Resource":"*","Condition":{"StringNotLike":{"sns:Endpoint":"arn:aws:sqs:*:${aws:username}:*"}}}]}`,
		map[string][]string{"sns:endpoint": {"arn:aws:sqs:eu-west-1:333333333333:x"}}, Allowed},
	{"a policy variable's literal escapes", Principal{Account: "222222222222", Aliases: []string{role222}}, subscribeAll,
		"sns:Subscribe", Resource{Aliases: []string{topic}, Account: "111111111111"},
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sns:Subscribe","Resource":"*","Condition":{"StringEquals":{"sns:Endpoint":"a${*}b${$}"}}}]}`,
		map[string][]string{"sns:endpoint": {"a*b$"}}, Allowed},
}

// TestEvaluate: IAM's decision logic, one rule per row, on literal policies.
func TestEvaluate(t *testing.T) {
	for _, tc := range evaluateCases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.principal
			if tc.identity != "" {
				p.Identity = docStatements(t, tc.identity)
			}
			r := tc.resource
			r.Policy = docStatements(t, tc.policy)
			ctx := map[string][]string{}
			for k, v := range tc.ctx {
				ctx[k] = v
			}
			if p.Service == "" {
				ctx["aws:principalarn"] = p.Aliases
			}
			got := Evaluate(Request{P: &p, Action: tc.action, R: &r, Ctx: ctx})
			if got.Decision != tc.want {
				t.Errorf("got %s (%s), want %s", got.Decision, got.Because, tc.want)
			}
		})
	}
}

func TestSNSServicePrincipal(t *testing.T) {
	for _, tc := range []struct{ topic, queue, want string }{
		{"eu-west-1", "eu-west-1", "sns.amazonaws.com"},
		{"eu-west-1", "us-east-1", "sns.amazonaws.com"},
		{"me-south-1", "me-south-1", "sns.amazonaws.com"},
		{"eu-west-1", "me-south-1", "sns.me-south-1.amazonaws.com"},
		{"me-south-1", "eu-west-1", "sns.me-south-1.amazonaws.com"},
		{"af-south-1", "me-south-1", "sns.me-south-1.amazonaws.com"},
		{"", "me-south-1", "sns.amazonaws.com"},
		{"*", "me-south-1", "sns.amazonaws.com"},
	} {
		if got := SNSServicePrincipal(tc.topic, tc.queue); got != tc.want {
			t.Errorf("SNSServicePrincipal(%q, %q) = %q, want %q", tc.topic, tc.queue, got, tc.want)
		}
	}
}

// TestPermissionsBoundary: a role's boundary is the most its identity-based
// permissions grant (IAM's policy evaluation logic): an Allow of a policy
// holds only where the boundary also allows; a Deny in it denies; one the
// evaluator cannot read leaves the cell undecided, never allowed; across
// accounts, and with the resource policy unread, it still limits.
func TestPermissionsBoundary(t *testing.T) {
	const (
		queue   = "arn:aws:sqs:eu-west-1:111111111111:q"
		role111 = "arn:aws:iam::111111111111:role/handler"
		sendAll = `{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}`
	)
	for _, tc := range []struct {
		name     string
		boundary *Boundary
		bdoc     string
		account  string
		unread   bool
		want     Decision
	}{
		{"no boundary", nil, "", "111111111111", false, Allowed},
		{"a boundary that allows it", &Boundary{}, sendAll, "111111111111", false, Allowed},
		{"a boundary that allows something else", &Boundary{}, `{"Statement":[{"Effect":"Allow","Action":"sqs:ReceiveMessage","Resource":"*"}]}`, "111111111111", false, Denied},
		{"a boundary that denies it", &Boundary{}, `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`, "111111111111", false, Denied},
		{"a boundary the evaluator cannot read", &Boundary{Unknown: "a managed policy of another app"}, "", "111111111111", false, Undecided},
		{"a boundary that allows something else, the resource policy unread", &Boundary{}, `{"Statement":[{"Effect":"Allow","Action":"sqs:ReceiveMessage","Resource":"*"}]}`, "111111111111", true, Denied},
		{"a boundary that allows something else, across accounts, the resource policy unread", &Boundary{}, `{"Statement":[{"Effect":"Allow","Action":"sqs:ReceiveMessage","Resource":"*"}]}`, "222222222222", true, Denied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Principal{Account: "111111111111", Aliases: []string{role111}, Identity: docStatements(t, sendAll), Boundary: tc.boundary}
			if tc.boundary != nil && tc.bdoc != "" {
				p.Boundary.Statements = docStatements(t, tc.bdoc)
			}
			r := Resource{Aliases: []string{queue}, Account: tc.account, Policy: docStatements(t, `{"Statement":[]}`), PolicyUnknown: tc.unread}
			got := Evaluate(Request{P: &p, Action: "sqs:SendMessage", R: &r, Ctx: map[string][]string{"aws:principalarn": p.Aliases}})
			if got.Decision != tc.want {
				t.Errorf("got %s (%s), want %s", got.Decision, got.Because, tc.want)
			}
		})
	}
}

// TestOrganisationPolicies: service control policies limit a principal of
// the accounts they are over (every level must allow; a Deny denies); resource
// control policies limit requests to the resources of theirs, for the
// services RCPs govern (SQS, S3, KMS, STS, Secrets Manager: not SNS); neither
// limits an AWS service principal.
func TestOrganisationPolicies(t *testing.T) {
	const (
		queue  = "arn:aws:sqs:eu-west-1:111111111111:q"
		topic  = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
		allowQ = `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
		all    = `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
	)
	// One level: AWS's RCPFullAWSAccess beside a Deny of other accounts.
	outsiders := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"},{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"StringNotEquals":{"aws:PrincipalAccount":"111111111111"}}}]}`
	for _, tc := range []struct {
		name            string
		account, action string
		resource        string
		service         string
		scps, rcps      []string
		want            Decision
	}{
		{"no organisation policies", "111111111111", "sqs:SendMessage", queue, "", nil, nil, Allowed},
		{"an SCP that allows everything", "111111111111", "sqs:SendMessage", queue, "", []string{all}, nil, Allowed},
		{"an SCP that allows something else", "111111111111", "sqs:SendMessage", queue, "", []string{`{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`}, nil, Denied},
		{"an SCP that denies it", "111111111111", "sqs:SendMessage", queue, "", []string{`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"*"}]}`}, nil, Denied},
		{"the second level of SCPs does not allow it", "111111111111", "sqs:SendMessage", queue, "", []string{all, `{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`}, nil, Denied},
		{"an RCP keeps other accounts out of SQS", "222222222222", "sqs:SendMessage", queue, "", nil, []string{outsiders}, Denied},
		{"an RCP lets its own account in", "111111111111", "sqs:SendMessage", queue, "", nil, []string{outsiders}, Allowed},
		{"RCPs do not govern SNS", "222222222222", "sns:Publish", topic, "", nil, []string{`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"*","Resource":"*"}]}`}, Allowed},
		{"an SCP does not limit a service principal", "111111111111", "sqs:SendMessage", queue, "sns.amazonaws.com", []string{`{"Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`}, nil, Allowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Principal{Account: tc.account, Aliases: []string{"arn:aws:iam::" + tc.account + ":role/handler"}, Identity: docStatements(t, allowQ)}
			if tc.service != "" {
				p = Principal{Service: tc.service, Account: "111111111111", Aliases: []string{topic}}
			}
			policy := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`
			r := Resource{Aliases: []string{tc.resource}, Account: "111111111111", Policy: docStatements(t, policy)}
			q := NewRequest(&p, tc.action, &r, "eu-west-1")
			for _, d := range tc.scps {
				q.SCPs = append(q.SCPs, docStatements(t, d))
			}
			for _, d := range tc.rcps {
				q.RCPs = append(q.RCPs, docStatements(t, d))
			}
			if got := Evaluate(q); got.Decision != tc.want {
				t.Errorf("got %s (%s), want %s", got.Decision, got.Because, tc.want)
			}
		})
	}
}
