package accessmodel

import (
	"fmt"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// OtherTopicSNS is SNS acting for a topic of an account no policy of stmts
// names, in the region of the erasure topic's SNS: what a confused deputy
// would be.
func OtherTopicSNS(erasureSNS *Principal, account string, stmts []iameval.Statement) *Principal {
	accounts := map[string]bool{account: true}
	for _, s := range stmts {
		aws, _ := s.PrincipalValues()
		for _, v := range aws {
			accounts[v] = true
			accounts[iameval.ARNAccount(v)] = true
		}
		for _, k := range []string{"aws:SourceArn", "aws:SourceAccount", "aws:SourceOwner"} {
			for _, v := range s.ConditionValues(k) {
				accounts[v] = true
				accounts[iameval.ARNAccount(v)] = true
			}
		}
	}
	return witnessTopicSNS(otherTopicSNSName+anyAccountLabel, FreshAccount(accounts), erasureSNS.Region)
}

// SNSFor is SNS acting for a topic: aws:SourceArn the topic's names,
// aws:SourceAccount its owner, from its region ("" when unknown).
func SNSFor(name, class string, topic []string, account, region string) *Principal {
	return &Principal{Name: name, Class: class, Principal: iameval.Principal{Service: "sns.amazonaws.com", Aliases: topic, Account: account, Region: region}}
}

// witnessTopicSNS is SNS acting for a topic of account that no policy names
// by its ARN, in region.
func witnessTopicSNS(name, account, region string) *Principal {
	arn := fmt.Sprintf("arn:aws:sns:%s:%s:erasure-witness-topic", iameval.OrStar(region), iameval.OrStar(account))
	return SNSFor(name, ClassOtherSNS, []string{arn}, account, region)
}
