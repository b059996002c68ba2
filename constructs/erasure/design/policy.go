package design

import (
	"encoding/json"
	"errors"
)

// Lock puts metadata on Resource's CloudFormation resource, then adds each
// statement through Resource's addToResourcePolicy (a queue's, topic's or
// bucket's policy, made on the first; a key's key policy when KeyPolicy).
type Lock struct {
	Resource   Name            `json:"resource"`
	KeyPolicy  bool            `json:"keyPolicy"`
	Metadata   []MetadataEntry `json:"metadata"`
	Statements []Statement     `json:"statements"`
}

// MetadataEntry is one metadata entry of a CloudFormation resource: Key
// and exactly one value.
type MetadataEntry struct {
	Key   string   `json:"key"`
	Text  *string  `json:"text,omitempty"`
	Flag  *bool    `json:"flag,omitempty"`
	Count *int     `json:"count,omitempty"`
	List  []string `json:"list,omitempty"`
}

// PolicyDocument is an IAM policy document. Its fields, and Statement's, are
// in the order encoding/json writes a map's keys, the order a template has
// always held them in.
type PolicyDocument struct {
	Statement []Statement `json:"Statement"`
	Version   string      `json:"Version"`
}

// PolicyVersion is the IAM policy language version every document states.
const PolicyVersion = "2012-10-17"

// Statement is one IAM policy statement.
type Statement struct {
	Action    *Values    `json:"Action,omitempty"`
	Condition Conditions `json:"Condition,omitempty"`
	Effect    Effect     `json:"Effect"`
	NotAction *Values    `json:"NotAction,omitempty"`
	Principal *Principal `json:"Principal,omitempty"`
	Resource  *Values    `json:"Resource,omitempty"`
	Sid       string     `json:"Sid,omitempty"`
}

// Effect is a statement's effect.
type Effect string

// The two effects.
const (
	Allow Effect = "Allow"
	Deny  Effect = "Deny"
)

// Conditions are a statement's condition block: operator → key → values.
type Conditions map[string]map[string]Values

// Principal is a statement's principal: every principal ("*"), or AWS
// principals by ARN.
type Principal struct {
	Any bool
	AWS Values
}

// Everyone is the principal "*".
var Everyone = &Principal{Any: true}

// MarshalJSON writes "*" or {"AWS": ...}.
func (p Principal) MarshalJSON() ([]byte, error) {
	if p.Any {
		return []byte(`"*"`), nil
	}
	return json.Marshal(struct {
		AWS Values `json:"AWS"`
	}{p.AWS})
}

// UnmarshalJSON reads "*" or {"AWS": ...}.
func (p *Principal) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != "*" {
			return errors.New(`design: a principal string must be "*"`)
		}
		*p = Principal{Any: true}
		return nil
	}
	var aws struct {
		AWS Values `json:"AWS"`
	}
	if err := json.Unmarshal(b, &aws); err != nil {
		return err
	}
	*p = Principal{AWS: aws.AWS}
	return nil
}

// TypeScript is Principal's type in applier/design.ts.
func (Principal) TypeScript() string { return `"*" | { AWS: string | string[] }` }

// Values is an IAM policy element that holds one string or a list of them,
// written as it was given: "a" and ["a"] are different templates.
type Values struct {
	list []string
	one  bool
}

// One is the single value s.
func One(s string) Values { return Values{list: []string{s}, one: true} }

// List is the list of values vs (a list, even of one).
func List(vs ...string) Values { return Values{list: append([]string{}, vs...)} }

// Ref is v for a field that takes a *Values.
func (v Values) Ref() *Values { return &v }

// MarshalJSON writes the string, or the list.
func (v Values) MarshalJSON() ([]byte, error) {
	if v.one {
		return json.Marshal(v.list[0])
	}
	if v.list == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(v.list)
}

// UnmarshalJSON reads a string or a list of strings.
func (v *Values) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*v = One(s)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("design: an IAM value must be a string or a list of strings")
	}
	*v = List(l...)
	return nil
}

// TypeScript is Values' type in applier/design.ts.
func (Values) TypeScript() string { return "string | string[]" }

// Effects are every Effect, for the applier's types.
var Effects = []Effect{Allow, Deny}
