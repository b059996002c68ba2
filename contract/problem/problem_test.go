package problem

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestPath: paths built step by step render as the channel's lines have
// always named them, read back with Parse, and answer Field, RootName and
// Under; a step never changes the path it was taken from.
func TestPath(t *testing.T) {
	sub := Root("ErasureSubscriber").Key("orders")
	cases := []struct {
		p     Path
		want  string
		field string
	}{
		{Root("ErasureChannel"), "ErasureChannel", "ErasureChannel"},
		{sub.Child("handler").Child("role"), "ErasureSubscriber[orders].handler.role", "role"},
		{Root("ErasureChannel").Child("stores").Index(2).Child("name"), "ErasureChannel.stores[2].name", "name"},
		{Root("Store").Key("Stack/Queue1").Child("reader").Key("Fn").Child("batchSize"), "Store[Stack/Queue1].reader[Fn].batchSize", "batchSize"},
		{Root("Access").Key("queue/Orders/Q"), "Access[queue/Orders/Q]", ""},
		{Path{}, "", ""},
	}
	for _, c := range cases {
		if got := c.p.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
		if got := c.p.Field(); got != c.field {
			t.Errorf("%s: Field %q, want %q", c.want, got, c.field)
		}
		if back := Parse(c.want); back.String() != c.want || !equal(back, c.p) {
			t.Errorf("Parse(%q) = %#v, want %#v", c.want, back, c.p)
		}
	}
	if sub.String() != "ErasureSubscriber[orders]" {
		t.Errorf("a step changed its parent: %s", sub)
	}
	a, b := sub.Child("x"), sub.Child("y") // siblings from one parent share no storage
	if a.String() != "ErasureSubscriber[orders].x" || b.String() != "ErasureSubscriber[orders].y" {
		t.Errorf("siblings: %s, %s", a, b)
	}
	if !a.Under(sub) || sub.Under(sub) || sub.Under(a) || Root("ErasureSubscriber").Key("order").Child("x").Under(sub) {
		t.Error("Under")
	}
	if sub.RootName() != "ErasureSubscriber" || (Path{}).RootName() != "" {
		t.Error("RootName")
	}
}

func equal(a, b Path) bool {
	if len(a.steps) != len(b.steps) {
		return false
	}
	for i := range a.steps {
		if a.steps[i] != b.steps[i] {
			return false
		}
	}
	return true
}

// TestProblemAndListAreErrors: a Problem is an error with the line
// path: Type: detail; a List is one error of every line, nil when empty, and
// a ConfigError-style wrapper finds each problem with errors.As.
func TestProblemAndListAreErrors(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	l.Add(Root("Config").Child("Responses"), Missing, "required")
	l.Add(Root("S").Child("handlerTimeout"), AboveCap, "%d is above the cap of %d", 61, 60)
	var err error = l.Err()
	if err == nil || err.Error() != "Config.Responses: Missing: required\nS.handlerTimeout: AboveCap: 61 is above the cap of 60" {
		t.Fatalf("%v", err)
	}
	var p Problem
	if !errors.As(error(l[1]), &p) || p.Type != AboveCap || p.Path.Field() != "handlerTimeout" {
		t.Errorf("%+v", p)
	}
	if got := strings.Join(l.Strings(), "|"); got != l[0].String()+"|"+l[1].String() {
		t.Error(got)
	}
	b, err := json.Marshal(l[1])
	var back Problem
	if err != nil || string(b) != `{"Path":"S.handlerTimeout","Type":"AboveCap","Detail":"61 is above the cap of 60"}` || json.Unmarshal(b, &back) != nil || back.String() != l[1].String() {
		t.Errorf("JSON: %s, %v, %+v", b, err, back)
	}
	named := List{l[1]}
	named.Name(func(Problem) (string, string) { return "EC201", "Set handlerTimeout to at most 60." })
	if got := named[0].Refusal(); got != "EC201 S.handlerTimeout: AboveCap: 61 is above the cap of 60\n  Fix: Set handlerTimeout to at most 60." {
		t.Errorf("a named problem's refusal: %q", got)
	}
	named.Name(func(Problem) (string, string) { return "EC999", "another" })
	if named[0].RuleID != "EC201" || !strings.HasSuffix(named[0].Fix, "60.") {
		t.Errorf("Name replaced a rule or fix already given: %+v", named[0])
	}
}

// FuzzParse: any string parses to a path without panicking, and rendering
// that path and parsing it again is stable.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"ErasureSubscriber[orders].handler.role", "A.b[0][k].c", "[", "]", "a..b", "x[01]", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Parse(s).String()
		if twice := Parse(once).String(); twice != once {
			t.Fatalf("%q -> %q -> %q", s, once, twice)
		}
	})
}
