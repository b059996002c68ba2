package constructrule

// The ids of ErasureChannel's and ErasureLedger's props' rules.
const (
	RuleChannelRoster       = "EC026"
	RuleChannelOrganisation = "EC027"
	RuleChannelPrincipals   = "EC028"
	RuleLedgerGiven         = "EC029"
	RuleLedgerRolesDeclared = "EC030"
	RuleLedgerRosterOnly    = "EC031"
)

// The fixes of the channel's and the ledger's rules, in the props' words.
const (
	FixChannelRoster       = "Give the roster as Stores: each store once, by a subscriber name and its 12-digit account id; leave StoreAccounts out when Stores is given."
	FixChannelOrganisation = "Give OrganizationID as the organisation's id (o- and 10 to 32 of a-z and 0-9), with the roster in Stores."
	FixChannelPrincipals   = "Give each of Publishers, ResponseReaders and Administrators as IAM principal ARNs (arn:aws:iam::ACCOUNT:role/NAME; a pattern only for Administrators)."
	FixLedgerGiven         = "Give the ledger its Channel (the ErasureChannel it serves) and Code (the ledger's Lambda handler)."
	FixLedgerRolesDeclared = "Name the ledger's sweeper role among the channel's Publishers and its reader role among its ResponseReaders (erasure.LedgerPrincipals gives both ARNs)."
	FixLedgerRosterOnly    = "Name only stores on the channel's roster (ErasureChannelProps.Stores) in RoleIds and LingeringDays."
)

// ChannelRules are the ids of ErasureChannel's and ErasureLedger's props'
// rules, in order.
var ChannelRules = []string{RuleChannelRoster, RuleChannelOrganisation, RuleChannelPrincipals, RuleLedgerGiven, RuleLedgerRolesDeclared, RuleLedgerRosterOnly}
