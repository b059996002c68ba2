package contract

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SSMParameterValueMaxBytes is the largest value of a standard-tier SSM
// parameter (AWS Systems Manager quotas: parameter value size, standard tier).
const SSMParameterValueMaxBytes = 4096

// RoleIDMaxBytes is the longest unique id IAM gives a role (IAM API
// reference, Role.RoleId: 16 to 128 characters). The roster's pages are cut
// so that every entry fits at that length; a role id deployed today is 21
// characters (RoleIDDeployedBytes), the lower bound the check counts.
const (
	RoleIDMaxBytes      = 128
	RoleIDDeployedBytes = 21
)

// LedgerRosterEntry is one store of the ledger's roster: its account ("" for
// the ledger's own), its handler role's unique id when the app knows it (""
// otherwise: the reader resolves it in the store's account through the
// store's lookup role, RosterLookupRoleARN, and refuses every answer of the
// store until it can) and, for a bitmap store, how long an erased id may
// linger (-1: not given).
type LedgerRosterEntry struct {
	Store         string
	Account       string
	RoleID        string
	LingeringDays int
}

// The roster page format: "<page>/<pages>;" then entries joined by ",",
// each "store[@account]=<role id>" with ":<lingering days>" after it when
// given.
const (
	ledgerRosterHeaderEnd = ";"
	ledgerRosterSep       = ","
)

// LedgerRosterPageHeader is the header of page i (from 1) of n.
func LedgerRosterPageHeader(i, n int) string {
	return strconv.Itoa(i) + "/" + strconv.Itoa(n) + ledgerRosterHeaderEnd
}

// LedgerRosterEntryPrefix is what stands before an entry's role id in a
// page: the separator (after the first) and "store=", or "store@account="
// for a store outside the ledger's account.
func LedgerRosterEntryPrefix(first bool, store, account string) string {
	if account != "" {
		store += "@" + account
	}
	if first {
		return store + "="
	}
	return ledgerRosterSep + store + "="
}

// LedgerRosterEntrySuffix is what stands after an entry's role id.
func LedgerRosterEntrySuffix(lingeringDays int) string {
	if lingeringDays < 0 {
		return ""
	}
	return ":" + strconv.Itoa(lingeringDays)
}

// ErrLedgerRoster is the error of a roster that cannot be read whole: a page
// missing, repeated or malformed. It carries no page's content.
var ErrLedgerRoster = errors.New("the ledger's roster pages are incomplete or malformed")

// ParseLedgerRoster reads every page of a roster, in any order, and fails
// unless pages 1 to n of one n are all there, once each, and every entry is
// well formed, so that a roster is never read in part.
func ParseLedgerRoster(pages []string) ([]LedgerRosterEntry, error) {
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: no page", ErrLedgerRoster)
	}
	seen := map[int]bool{}
	total := -1
	var out []LedgerRosterEntry
	names := map[string]bool{}
	for _, p := range pages {
		head, body, ok := strings.Cut(p, ledgerRosterHeaderEnd)
		is, ns, ok2 := strings.Cut(head, "/")
		i, err1 := strconv.Atoi(is)
		n, err2 := strconv.Atoi(ns)
		if !ok || !ok2 || err1 != nil || err2 != nil || i < 1 || n < 1 || i > n || (total >= 0 && n != total) || seen[i] {
			return nil, fmt.Errorf("%w: a page's header", ErrLedgerRoster)
		}
		total, seen[i] = n, true
		if body == "" {
			continue
		}
		for _, e := range strings.Split(body, ledgerRosterSep) {
			who, rest, ok := strings.Cut(e, "=")
			store, account, hasAccount := strings.Cut(who, "@")
			if !ok || !IsSubscriberName(store) || names[store] || (hasAccount && !IsAWSAccountID(account)) {
				return nil, fmt.Errorf("%w: an entry", ErrLedgerRoster)
			}
			names[store] = true
			entry := LedgerRosterEntry{Store: store, Account: account, LingeringDays: -1}
			id, days, hasDays := strings.Cut(rest, ":")
			if id != "" && !IsRoleID(id) {
				return nil, fmt.Errorf("%w: an entry's role id", ErrLedgerRoster)
			}
			entry.RoleID = id
			if hasDays {
				d, err := strconv.Atoi(days)
				if err != nil || d < 0 {
					return nil, fmt.Errorf("%w: an entry's lingering days", ErrLedgerRoster)
				}
				entry.LingeringDays = d
			}
			out = append(out, entry)
		}
	}
	if len(seen) != total {
		return nil, fmt.Errorf("%w: %d of %d pages", ErrLedgerRoster, len(seen), total)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Store < out[b].Store })
	return out, nil
}

// LedgerExpireAttribute is the ledger table's TTL attribute (epoch seconds):
// a receipted request's rounds and answers carry it
// (ledgerAnswerRetentionDays), and DynamoDB removes them after it passes.
const LedgerExpireAttribute = "ExpireAt"
