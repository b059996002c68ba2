package contract

import "regexp"

// The ledger functions' role names: fixed, so that the channel's lockdown
// and every store's lookup role (RosterLookupRoleName) can name them before
// they exist.
const (
	LedgerReaderRoleName  = "erasure-ledger-reader"
	LedgerSweeperRoleName = "erasure-ledger-sweeper"
)

// LedgerRoleARN is the ARN of the ledger's role named name
// (LedgerReaderRoleName or LedgerSweeperRoleName) in account.
func LedgerRoleARN(partition, account, name string) string {
	return "arn:" + partition + ":iam::" + account + ":role/" + name
}

// RosterLookupRolePath is the IAM path of every store's lookup role: the
// role a store's own stack creates so that the ledger's reader, and only it,
// may read its handler role's unique id (iam:GetRole on that one role), and a
// store in any account joins the roster with its own deploy.
const RosterLookupRolePath = "/erasure-channel-lookup/"

// rosterLookupNamePrefix begins every store's lookup role name.
const rosterLookupNamePrefix = "erasure-roleid-"

// RosterLookupRoleName is the name of store's lookup role: deterministic,
// so that the ledger finds it from the roster's name and account alone.
func RosterLookupRoleName(store string) string {
	return boundedName(rosterLookupNamePrefix, store, handlerNameMax)
}

// RosterLookupRoleARN is the ARN of store's lookup role in account.
func RosterLookupRoleARN(partition, account, store string) string {
	return "arn:" + partition + ":iam::" + account + ":role" + RosterLookupRolePath + RosterLookupRoleName(store)
}

// RosterLookupRolePattern is the ARN pattern of every lookup role in every
// account: what the ledger's reader may assume.
func RosterLookupRolePattern(partition string) string {
	return "arn:" + partition + ":iam::*:role" + RosterLookupRolePath + rosterLookupNamePrefix + "*"
}

// IsAWSAccountID says whether s is a 12-digit AWS account id.
func IsAWSAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// organizationID is AWS Organizations' id pattern (Organization.Id: "o-"
// and 10 to 32 lower-case letters or digits).
var organizationID = regexp.MustCompile(`^o-[a-z0-9]{10,32}$`)

// IsOrganizationID says whether s is an AWS Organizations organization id.
func IsOrganizationID(s string) bool { return organizationID.MatchString(s) }
