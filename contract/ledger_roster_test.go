package contract

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestLedgerRosterPages: a roster is read whole from its pages in any order,
// or refused with ErrLedgerRoster; the error names no entry.
func TestLedgerRosterPages(t *testing.T) {
	const id = "AROAEXAMPLEEXAMPLE123"
	page := func(i, n int, entries ...[3]string) string {
		s := LedgerRosterPageHeader(i, n)
		for j, e := range entries {
			who, acct, _ := strings.Cut(e[0], "@")
			s += LedgerRosterEntryPrefix(j == 0, who, acct) + e[1] + e[2]
		}
		return s
	}
	cases := []struct {
		name  string
		pages []string
		want  []LedgerRosterEntry
	}{
		{"one page", []string{page(1, 1, [3]string{"space", id, ""}, [3]string{"bitmaps", id, LedgerRosterEntrySuffix(30)})},
			[]LedgerRosterEntry{{"bitmaps", "", id, 30}, {"space", "", id, -1}}},
		{"two pages out of order", []string{page(2, 2, [3]string{"b", "", ""}), page(1, 2, [3]string{"a", id, ""})},
			[]LedgerRosterEntry{{"a", "", id, -1}, {"b", "", "", -1}}},
		{"a store of another account, its id to resolve", []string{page(1, 1, [3]string{"orders-0001@300000000001", "", ""}, [3]string{"space", id, ""})},
			[]LedgerRosterEntry{{"orders-0001", "300000000001", "", -1}, {"space", "", id, -1}}},
		{"a bad account", []string{page(1, 1, [3]string{"a@3000", "", ""})}, nil},
		{"nothing after @", []string{LedgerRosterPageHeader(1, 1) + "a@="}, nil},
		{"an empty roster", []string{page(1, 1)}, nil},
		{"no page", nil, nil},
		{"a page missing", []string{page(1, 2, [3]string{"a", id, ""})}, nil},
		{"a page twice", []string{page(1, 2), page(1, 2)}, nil},
		{"pages of two rosters", []string{page(1, 2), page(2, 3)}, nil},
		{"a store twice", []string{page(1, 2, [3]string{"a", id, ""}), page(2, 2, [3]string{"a", id, ""})}, nil},
		{"a bad role id", []string{page(1, 1, [3]string{"a", "not-an-id", ""})}, nil},
		{"a bad store name", []string{page(1, 1, [3]string{"A", id, ""})}, nil},
		{"bad lingering days", []string{page(1, 1, [3]string{"a", id, ":-1"})}, nil},
		{"no header", []string{"a=" + id}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLedgerRoster(tc.pages)
			if tc.want == nil && !strings.HasPrefix(tc.name, "an empty") {
				if !errors.Is(err, ErrLedgerRoster) {
					t.Fatalf("want ErrLedgerRoster, got %v %v", got, err)
				}
				if strings.Contains(err.Error(), id) {
					t.Errorf("the error carries a role id: %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v %v, want %v", got, err, tc.want)
			}
		})
	}
}

// FuzzParseLedgerRoster: no page set panics the parser, and what it accepts
// it reads back the same from the pages it would write.
func FuzzParseLedgerRoster(f *testing.F) {
	f.Add("1/1;space=AROAEXAMPLEEXAMPLE123,bitmaps=:30", "")
	f.Add("1/2;a=", "2/2;b=AROAEXAMPLEEXAMPLE123")
	f.Fuzz(func(t *testing.T, a, b string) {
		entries, err := ParseLedgerRoster([]string{a, b})
		if err != nil {
			return
		}
		s := LedgerRosterPageHeader(1, 1)
		for i, e := range entries {
			s += LedgerRosterEntryPrefix(i == 0, e.Store, e.Account) + e.RoleID + LedgerRosterEntrySuffix(e.LingeringDays)
		}
		again, err := ParseLedgerRoster([]string{s})
		if err != nil || !reflect.DeepEqual(again, entries) && len(entries) > 0 {
			t.Fatalf("read back %v %v, want %v", again, err, entries)
		}
	})
}
