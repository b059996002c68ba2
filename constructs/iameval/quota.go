package iameval

import "fmt"

// Quota is what a service accepts in one resource policy; 0 is no limit.
type Quota struct {
	Bytes, Statements, Principals, ActionsPerStatement int
	// Conditions counts every key of every operator of every statement: the
	// SQS guide gives 10 without saying whether a statement or the policy, so
	// the policy's (the stricter) is counted.
	Conditions int
	Source     string // where AWS documents it
}

// Quotas are the resource-policy quotas of the channel's services, by the
// CloudFormation type that sets the policy. Past one, deploy fails.
var Quotas = map[string]Quota{
	"AWS::SQS::QueuePolicy":       {Bytes: 8192, Statements: 20, Principals: 50, ActionsPerStatement: 7, Conditions: 10, Source: "Amazon SQS developer guide, policy quotas"},
	"AWS::SQS::QueueInlinePolicy": {Bytes: 8192, Statements: 20, Principals: 50, ActionsPerStatement: 7, Conditions: 10, Source: "Amazon SQS developer guide, policy quotas"},
	"AWS::SNS::TopicPolicy":       {Bytes: 30720, Statements: 100, Source: "Amazon SNS quotas (topic access policy)"},
	"AWS::SNS::TopicInlinePolicy": {Bytes: 30720, Statements: 100, Source: "Amazon SNS quotas (topic access policy)"},
	"AWS::KMS::Key":               {Bytes: 32768, Source: "AWS KMS quotas (key policy document size)"},
	"AWS::S3::BucketPolicy":       {Bytes: 20480, Source: "Amazon S3 user guide (bucket policy size)"},
}

// QuotaProblems are the quotas of typ a policy of at least minBytes bytes
// with stmts breaks, each as what deploy would be refused for.
func QuotaProblems(typ string, minBytes int, stmts []Statement) []string {
	q, ok := Quotas[typ]
	if !ok {
		return nil
	}
	var out []string
	if q.Bytes > 0 && minBytes > q.Bytes {
		out = append(out, fmt.Sprintf("the policy is at least %d bytes, past the %d its service accepts (%s)", minBytes, q.Bytes, q.Source))
	}
	if q.Statements > 0 && len(stmts) > q.Statements {
		out = append(out, fmt.Sprintf("the policy has %d statements, past the %d its service accepts (%s)", len(stmts), q.Statements, q.Source))
	}
	principals := 0
	for i, s := range stmts {
		aws, services := s.PrincipalValues()
		principals += len(aws) + len(services)
		if n := len(StringsOf(s.Action)); q.ActionsPerStatement > 0 && n > q.ActionsPerStatement {
			out = append(out, fmt.Sprintf("%s lists %d actions, past the %d a statement may (%s)", s.describe(i), n, q.ActionsPerStatement, q.Source))
		}
	}
	if n := ConditionCount(stmts); q.Conditions > 0 && n > q.Conditions {
		out = append(out, fmt.Sprintf("the policy has %d conditions, past the %d its service accepts (%s)", n, q.Conditions, q.Source))
	}
	if q.Principals > 0 && principals > q.Principals {
		out = append(out, fmt.Sprintf("the policy names %d principals, past the %d its service accepts (%s)", principals, q.Principals, q.Source))
	}
	return out
}

// ConditionCount is the policy's conditions: every key of every operator of
// every statement.
func ConditionCount(stmts []Statement) int {
	n := 0
	for _, s := range stmts {
		for _, block := range s.Condition {
			bm, _ := block.(map[string]any)
			n += len(bm)
		}
	}
	return n
}
