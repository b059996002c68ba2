package lambdaemu

import (
	"errors"
	"net/http"
	"testing"
)

func TestParseRuntime(t *testing.T) {
	for _, c := range []struct {
		id      string
		family  Family
		version string
		bad     bool
	}{
		{id: "nodejs22.x", family: Node, version: "22"},
		{id: "nodejs24.x", family: Node, version: "24"},
		{id: "python3.12", family: Python, version: "3.12"},
		{id: "python3.9", family: Python, version: "3.9"},
		{id: "java21", family: Java, version: "21"},
		{id: "java17", family: Java, version: "17"},
		{id: "provided.al2023", family: Provided, version: "al2023"},
		{id: "provided.al2", family: Provided, version: "al2"},
		{id: "provided", family: Provided, version: "al1"},
		{id: "java8.al2", bad: true},
		{id: "nodejs22", bad: true},
		{id: "python3", bad: true},
		{id: "go1.x", bad: true},
		{id: "dotnet8", bad: true},
		{id: "", bad: true},
		{id: "NODEJS22.X", bad: true},
		{id: "nodejs22.x ", bad: true},
	} {
		rt, err := ParseRuntime(c.id)
		var re *RuntimeError
		switch {
		case c.bad && !errors.As(err, &re):
			t.Errorf("%q: %v, want a *RuntimeError", c.id, err)
		case !c.bad && (err != nil || rt.Family != c.family || rt.Version != c.version):
			t.Errorf("%q: %+v %v, want %s %s", c.id, rt, err, c.family, c.version)
		}
	}
}

// TestErrorTypeKeepsOnlyATypeName: what a runtime reports is kept only when
// it reads as a type's name; a message, or text posing as a type, is not.
func TestErrorTypeKeepsOnlyATypeName(t *testing.T) {
	for _, c := range []struct{ header, body, want string }{
		{"Runtime.ExitError", "", "Runtime.ExitError"},
		{"", `{"errorType":"ValueError","errorMessage":"key acct-0001 not found"}`, "ValueError"},
		{"", `{"errorType":"com.example.Store$Failure"}`, "com.example.Store$Failure"},
		{"", `{"errorType":"no such key acct-0001@example.com"}`, "Unhandled"},
		{"", `{"errorMessage":"boom"}`, "Unhandled"},
		{"", `not json`, "Unhandled"},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://x/", nil)
		if c.header != "" {
			r.Header.Set("Lambda-Runtime-Function-Error-Type", c.header)
		}
		if got := errorType(r, []byte(c.body)); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.header, c.body, got, c.want)
		}
	}
}
