package contract

import (
	"strings"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/schema"
)

func TestCapabilityFixturesCoverEveryImplementablePair(t *testing.T) {
	f := ErasureCapabilityFixtures()
	want := map[Pair]bool{}
	for _, typ := range RequestTypes {
		for _, kind := range []KeyKind{KeyAccount, KeyAddress} {
			if typ == TypeRefile && kind == KeyAccount {
				continue // REFILE only with ADDRESS
			}
			want[Pair{typ, kind}] = true
		}
	}
	got := map[Pair]bool{}
	for _, p := range f.Pairs {
		if got[p.Pair] {
			t.Errorf("pair %v twice", p.Pair)
		}
		got[p.Pair] = true
		if !want[p.Pair] {
			t.Errorf("pair %v is not implementable", p.Pair)
		}
		if p.NotImplementedOutcome != "NOT_APPLICABLE" || !p.Allows("NOT_APPLICABLE", false) || p.Allows("NOT_APPLICABLE", true) {
			t.Errorf("pair %v: NOT_APPLICABLE is the answer of a store that does not implement it, and only then", p.Pair)
		}
		if p.ResponseType != p.Pair.Type.ResponseType() {
			t.Errorf("pair %v: response type %s", p.Pair, p.ResponseType)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d pairs, want %d", len(got), len(want))
	}
	if y := f.PlaceholderExpiresAt.Year(); y != 2099 {
		t.Errorf("placeholder year %d, want 2099", y)
	}
}

func TestCapabilityRestamp(t *testing.T) {
	c := Channel()
	now := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	for _, p := range ErasureCapabilityFixtures().Pairs {
		r := p.Restamped(now, c)
		if !r.ExpiresAt.Equal(now.Add(c.ExpiryPeriod())) {
			t.Errorf("%v restamped to %v", p.Pair, r.ExpiresAt)
		}
		if r.Expired(now) || !r.Expired(now.Add(c.ExpiryPeriod())) {
			t.Errorf("%v: expiry at now + R does not hold", p.Pair)
		}
		if _, err := EncodeRequest(r); err != nil {
			t.Errorf("%v: restamped request invalid: %v", p.Pair, err)
		}
		if !p.Request.ExpiresAt.Equal(ErasureCapabilityFixtures().PlaceholderExpiresAt) {
			t.Errorf("restamping changed the fixture itself")
		}
	}
}

func TestLoadCapabilityFixturesRefusesBadFiles(t *testing.T) {
	good := string(schema.CapabilityFixturesJSON)
	for name, doc := range map[string]string{
		"request invalid":   strings.Replace(good, `"acct-0001"`, `""`, 1),
		"wrong outcome":     strings.Replace(good, `"DONE"`, `"MOVED"`, 1),
		"wrong placeholder": strings.Replace(good, `"placeholderExpiresAt": "2099-01-01T00:00:00Z"`, `"placeholderExpiresAt": "2098-01-01T00:00:00Z"`, 1),
		"not json":          "{",
	} {
		if _, err := LoadCapabilityFixtures([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
