package contract

import (
	"encoding/json"
	"errors"
	"io/fs"
	"testing"

	"github.com/linn-cloud/erasure-channel/schema"
)

type fixtureCase struct {
	File         string `json:"file"`
	ParseRequest string `json:"parseRequest"`
	Validate     string `json:"validate"`
	Why          string `json:"why"`
	body         []byte
}

func loadFixtures(t testing.TB) []fixtureCase {
	t.Helper()
	raw, err := fs.ReadFile(schema.Fixtures, "fixtures/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var man struct{ Cases []fixtureCase }
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	for i := range man.Cases {
		b, err := fs.ReadFile(schema.Fixtures, "fixtures/"+man.Cases[i].File)
		if err != nil {
			t.Fatal(err)
		}
		man.Cases[i].body = b
	}
	return man.Cases
}

func verdict(err error, ok string) string {
	if err == nil {
		return ok
	}
	var ce *ContractError
	if !errors.As(err, &ce) {
		return "untyped error"
	}
	return string(ce.Code)
}

// TestFixtures runs every shared fixture through the request parser, the
// fast validator and the schema validator: each must give the manifest's verdict.
func TestFixtures(t *testing.T) {
	cases := loadFixtures(t)
	if len(cases) < 80 {
		t.Fatalf("only %d fixtures", len(cases))
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			_, err := ParseRequest(c.body)
			if got := verdict(err, "OK"); got != c.ParseRequest {
				t.Errorf("ParseRequest = %s, want %s (%s)", got, c.ParseRequest, c.Why)
			}
			_, err = Validate(c.body)
			if got := verdict(err, "VALID"); got != c.Validate {
				t.Errorf("Validate = %s, want %s (%s)", got, c.Validate, c.Why)
			}
			_, err = ValidateWithSchema(c.body)
			if got := verdict(err, "VALID"); got != c.Validate {
				t.Errorf("ValidateWithSchema = %s, want %s (%s)", got, c.Validate, c.Why)
			}
		})
	}
}
