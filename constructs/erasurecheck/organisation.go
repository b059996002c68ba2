package erasurecheck

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// OrganisationError is a Config's SCPs, RCPs or Units that cannot be read:
// a target that is no account, unit or root id, a path that does not run
// from a root through units, or an account of the app with no place in the
// organisation while unit policies are given. Its text names only ids.
type OrganisationError struct{ Reason string }

func (e *OrganisationError) Error() string { return "erasurecheck: organisation: " + e.Reason }

var (
	accountID = regexp.MustCompile(`^[0-9]{12}$`)
	rootID    = regexp.MustCompile(`^r-[0-9a-z]{4,32}$`)
	unitID    = regexp.MustCompile(`^ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}$`)
	// orgID is AWS Organizations' organization id (the API reference's
	// Organization.Id pattern).
	orgID = regexp.MustCompile(`^o-[a-z0-9]{10,32}$`)
)

// IsOrganizationID says whether id is an AWS organization's id (o-…).
func IsOrganizationID(id string) bool { return orgID.MatchString(id) }

// IsOrganisationTarget says whether id can carry SCPs or RCPs: an account
// id, an organisational unit's id or a root's id.
func IsOrganisationTarget(id string) bool {
	return accountID.MatchString(id) || unitID.MatchString(id) || rootID.MatchString(id)
}

// ParseUnitPath reads an account's place in the organisation, written
// ROOT/OU/…/OU (the root first, then each unit down to the account's).
func ParseUnitPath(s string) ([]string, error) {
	path := strings.Split(s, "/")
	if !isUnitPath(path) {
		return nil, &OrganisationError{Reason: "a path runs from a root (r-…) through units (ou-…-…), separated by /"}
	}
	return path, nil
}

// isUnitPath says whether path runs from a root through units.
func isUnitPath(path []string) bool {
	for i, id := range path {
		if i == 0 && !rootID.MatchString(id) || i > 0 && !unitID.MatchString(id) {
			return false
		}
	}
	return len(path) > 0
}

// setOrganisation reads the organisation's policies the check was given
// and places every account of the app in it.
func (a *assembly) setOrganisation(cfg Config) error {
	if cfg.OrganizationID != "" {
		if !orgID.MatchString(cfg.OrganizationID) {
			return &OrganisationError{Reason: "OrganizationID is an organization's id: o- and 10 to 32 lower-case letters or digits"}
		}
		o := &a.context().Organisation
		if o.ID != "" && o.ID != cfg.OrganizationID {
			return &OrganisationError{Reason: "OrganizationID " + cfg.OrganizationID + " is not the organisation the channel admits (" + o.ID + ")"}
		}
		o.ID = cfg.OrganizationID
	}
	for acct, path := range cfg.Units {
		if !accountID.MatchString(acct) {
			return &OrganisationError{Reason: "Units is keyed by 12-digit account ids"}
		}
		if !isUnitPath(path) {
			return &OrganisationError{Reason: fmt.Sprintf("the path of account %s does not run from a root through units", acct)}
		}
	}
	accounts := map[string]bool{}
	for _, t := range a.Templates {
		if accountID.MatchString(t.Account) {
			accounts[t.Account] = true
		}
	}
	for acct := range cfg.Units {
		accounts[acct] = true
		if cfg.OrganizationID != "" {
			a.context().Organisation.Accounts[acct] = true
		}
	}
	a.context().Organisation.Units = cfg.Units
	var err error
	if a.context().SCPs, err = placeLevels(cfg.SCPs, cfg.Units, accounts, "SCP"); err != nil {
		return err
	}
	a.context().RCPs, err = placeLevels(cfg.RCPs, cfg.Units, accounts, "RCP")
	return err
}

// placeLevels parses the policies given by target and gives each account
// its levels: the policy levels its principals (SCPs) or resources (RCPs)
// meet, the root first and the account last, with the statements of every
// policy attached at each level of its path. A level nobody gave policies
// for is left out: AWS Organizations attaches FullAWSAccess to every root,
// unit and account unless it is replaced.
func placeLevels(by map[string][]any, units map[string][]string, accounts map[string]bool, what string) (map[string][][]statement, error) {
	attached := map[string][]statement{}
	unitPolicies := false
	for _, target := range cfnmodel.SortedKeys(by) {
		if !IsOrganisationTarget(target) {
			return nil, &OrganisationError{Reason: fmt.Sprintf("%ss are attached to an account id, a unit id (ou-…) or a root id (r-…)", what)}
		}
		unitPolicies = unitPolicies || !accountID.MatchString(target)
		for i, d := range by[target] {
			attached[target] = append(attached[target], iameval.Parse(d, nil, fmt.Sprintf("%s[%s] policy %d", what, target, i+1))...)
		}
	}
	out := map[string][][]statement{}
	for _, acct := range cfnmodel.SortedKeys(accounts) { // the first unplaced account is the one named
		path, placed := units[acct]
		if unitPolicies && !placed {
			return nil, &OrganisationError{Reason: fmt.Sprintf("%ss are given for units, but account %s has no place in the organisation: give its path (erasurectl --ou %s=ROOT/OU/…)", what, acct, acct)}
		}
		for _, level := range append(append([]string{}, path...), acct) {
			if st, ok := attached[level]; ok {
				out[acct] = append(out[acct], st)
			}
		}
	}
	return out, nil
}
