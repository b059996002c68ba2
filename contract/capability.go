package contract

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/linn-cloud/erasure-channel/schema"
)

// CapabilityPair is one (type, keyKind) pair a store can implement, with a
// valid request for it, the response type, and the outcomes a store gives
// when it implements the pair and when it does not.
type CapabilityPair struct {
	Pair                  Pair
	Request               Request // expiresAt is the 2099 placeholder: use Restamped
	ResponseType          MessageType
	OutcomeField          string // "outcome" (ACK, REFILE_ACK) or "answer" (HOLDINGS)
	ImplementedOutcomes   []string
	NotImplementedOutcome string
}

// Restamped returns the pair's request with expiresAt = now + R, ready to send.
func (p CapabilityPair) Restamped(now time.Time, c Constants) Request {
	r := p.Request
	r.ExpiresAt = now.UTC().Add(c.ExpiryPeriod())
	return r
}

// Allows reports whether outcome is a right answer to the pair, for a store
// that implements it (implemented) or not.
func (p CapabilityPair) Allows(outcome string, implemented bool) bool {
	if !implemented {
		return outcome == p.NotImplementedOutcome
	}
	for _, o := range p.ImplementedOutcomes {
		if o == outcome {
			return true
		}
	}
	return false
}

// CapabilityFixtures is schema/erasure-capability-fixtures.json as Go values.
type CapabilityFixtures struct {
	PlaceholderExpiresAt time.Time
	Pairs                []CapabilityPair
}

type capabilityFile struct {
	Comment              string `json:"$comment"`
	PlaceholderExpiresAt string `json:"placeholderExpiresAt"`
	Pairs                []struct {
		Type                  MessageType     `json:"type"`
		KeyKind               KeyKind         `json:"keyKind"`
		Request               json.RawMessage `json:"request"`
		ResponseType          MessageType     `json:"responseType"`
		OutcomeField          string          `json:"outcomeField"`
		ImplementedOutcomes   []string        `json:"implementedOutcomes"`
		NotImplementedOutcome string          `json:"notImplementedOutcome"`
	} `json:"pairs"`
}

// LoadCapabilityFixtures reads a capability fixtures file. Every request must
// pass ParseRequest and match its pair; every outcome must be one the
// response type allows.
func LoadCapabilityFixtures(data []byte) (CapabilityFixtures, error) {
	var f capabilityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return CapabilityFixtures{}, fmt.Errorf("contract: capability fixtures: not a fixtures document")
	}
	var out CapabilityFixtures
	ts, ok := parseUTCZ([]byte(f.PlaceholderExpiresAt))
	if !ok {
		return out, fmt.Errorf("contract: capability fixtures: placeholderExpiresAt is not a contract timestamp")
	}
	out.PlaceholderExpiresAt = ts
	for i, p := range f.Pairs {
		req, err := ParseRequest(p.Request)
		if err != nil {
			return CapabilityFixtures{}, fmt.Errorf("contract: capability fixtures: pair %d: request %w", i, err)
		}
		pair := Pair{Type: p.Type, KeyKind: p.KeyKind}
		if req.Pair() != pair || req.Type.ResponseType() != p.ResponseType || !req.ExpiresAt.Equal(ts) {
			return CapabilityFixtures{}, fmt.Errorf("contract: capability fixtures: pair %d: request does not match its pair, response type or placeholder", i)
		}
		cp := CapabilityPair{Pair: pair, Request: req, ResponseType: p.ResponseType, OutcomeField: p.OutcomeField,
			ImplementedOutcomes: p.ImplementedOutcomes, NotImplementedOutcome: p.NotImplementedOutcome}
		for _, o := range append(append([]string{}, p.ImplementedOutcomes...), p.NotImplementedOutcome) {
			if _, err := EncodeResponse(AnswerFor(req, "capability-check", o)); err != nil {
				return CapabilityFixtures{}, fmt.Errorf("contract: capability fixtures: pair %d: an outcome is not valid for %s", i, p.ResponseType)
			}
		}
		if want := outcomeFieldOf(p.ResponseType); p.OutcomeField != want {
			return CapabilityFixtures{}, fmt.Errorf("contract: capability fixtures: pair %d: outcomeField must be %q", i, want)
		}
		out.Pairs = append(out.Pairs, cp)
	}
	return out, nil
}

func outcomeFieldOf(t MessageType) string {
	if t == TypeHoldings {
		return "answer"
	}
	return "outcome"
}

var (
	capOnce sync.Once
	capVal  CapabilityFixtures
)

// ErasureCapabilityFixtures returns the embedded capability fixtures. The
// slice is a fresh copy on every call.
func ErasureCapabilityFixtures() CapabilityFixtures {
	capOnce.Do(func() {
		f, err := LoadCapabilityFixtures(schema.CapabilityFixturesJSON)
		if err != nil {
			panic(err) // the embedded file is checked by the package's tests
		}
		capVal = f
	})
	out := capVal
	out.Pairs = append([]CapabilityPair(nil), capVal.Pairs...)
	return out
}
