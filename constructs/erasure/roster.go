package erasure

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// RosterStore is one store on the channel's roster: who may answer.
type RosterStore struct {
	// Name is the store's subscriber name (ErasureSubscriberProps.Name).
	Name string
	// Account is the store's AWS account id; "" means the channel's account.
	Account string
	// Region is the region of the store's queue; "" means the channel's.
	Region string
}

// handlerRoleArn is the ARN of a roster store's handler role.
func handlerRoleArn(account string, store string) string {
	return fmt.Sprintf("arn:%s:iam::%s:role/%s", *awscdk.Aws_PARTITION(), account, contract.HandlerName(store))
}

// checkRoster lists every problem of a roster.
func checkRoster(stores []RosterStore, legacyAccounts []string) timing.Problems {
	var l timing.Problems
	seen := map[string]bool{}
	for i, s := range stores {
		path := fmt.Sprintf("ErasureChannel.stores[%d]", i)
		if !contract.IsSubscriberName(s.Name) {
			l.Add(path+".name", timing.Invalid, "%q is not a subscriber name: 1 to 64 of a-z, 0-9 and -, starting with a letter", s.Name)
		} else if seen[s.Name] {
			l.Add(path+".name", timing.Invalid, "%q is on the roster twice", s.Name)
		}
		seen[s.Name] = true
		if s.Account != "" && !isAccountID(s.Account) {
			l.Add(path+".account", timing.Invalid, "%q is not a 12-digit AWS account id", s.Account)
		}
	}
	if len(stores) > 0 && len(legacyAccounts) > 0 {
		l.Add("ErasureChannel.storeAccounts", timing.Invalid, "give the roster (Stores) alone: the store accounts are derived from it, and an account listed without its stores would let every principal in it answer")
	}
	return l
}

// rosterAccounts are the accounts of the roster's stores ("" = the channel's), once each, in order.
func rosterAccounts(stores []RosterStore, channelAccount string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range stores {
		a := s.Account
		if a == "" {
			a = channelAccount
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// rosterRoleArns are the roster's handler roles.
func rosterRoleArns(stores []RosterStore, channelAccount string) []string {
	out := make([]string, 0, len(stores))
	for _, s := range stores {
		a := s.Account
		if a == "" {
			a = channelAccount
		}
		out = append(out, handlerRoleArn(a, s.Name))
	}
	return out
}
