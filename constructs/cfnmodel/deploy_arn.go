package cfnmodel

import (
	"fmt"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// GeneratedName stands for the part of an ARN that CloudFormation generates
// at deploy (a queue's or role's name when the template gives none, a key's
// id). It is a character no policy writes: a policy's literal name never
// matches it, and only a wildcard covers it, as only a wildcard covers a
// name nobody knows before the deploy.
const GeneratedName = "\x00"

// DeployARN is the ARN a resource of t will have once deployed, where the
// template does not name it: its partition, region and account are the
// stack's (a pattern, "*", where the stack is environment-agnostic) and its
// generated part is GeneratedName. "" for a resource the template names
// (Aliases has its literal ARN) or a type it does not know.
func DeployARN(t *Template, id string) string {
	r, ok := t.Resources[id]
	if !ok {
		return ""
	}
	region, account := t.Region, t.Account
	partition := iameval.PartitionOf(region)
	if region == "" {
		region = "*"
	}
	if account == "" {
		account = "*"
	}
	named := func(key string) bool { _, ok := r.Properties[key]; return ok }
	switch r.Type {
	case "AWS::KMS::Key":
		return fmt.Sprintf("arn:%s:kms:%s:%s:key/%s", partition, region, account, GeneratedName)
	case "AWS::SQS::Queue":
		if !named("QueueName") {
			return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", partition, region, account, GeneratedName)
		}
	case "AWS::SNS::Topic":
		if !named("TopicName") {
			return fmt.Sprintf("arn:%s:sns:%s:%s:%s", partition, region, account, GeneratedName)
		}
	case "AWS::IAM::Role":
		path := "/"
		if p, given := r.Properties["Path"]; given {
			s, literal := p.(string)
			if !literal {
				return "" // a path only the deploy knows
			}
			path = s
		}
		if !named("RoleName") {
			return fmt.Sprintf("arn:%s:iam::%s:role%s%s", partition, account, path, GeneratedName)
		}
	}
	return ""
}
