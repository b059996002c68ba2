package contract

import (
	"errors"
	"strings"
	"testing"
)

func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Jane.Doe@Example.COM", "jane.doe@example.com"},
		{"jane@example.com", "jane@example.com"},
		{"\u212Aelvin@x", "\u212Aelvin@x"}, // Kelvin sign stays: not A to Z
		{"Kelvin@x", "kelvin@x"},
		{"JÖRG@EXAMPLE.DE", "jÖrg@example.de"}, // Ö is not A to Z: left as typed
		{"İSTANBUL@x", "İstanbul@x"},           // dotted capital I stays
		{"ΣΑΣ@x", "ΣΑΣ@x"},                     // Greek stays
		{"", ""},
		{"@[]^_`{", "@[]^_`{"}, // neighbours of A-Z in ASCII are untouched
	} {
		if got := AddressKey(tc.in); got != tc.want {
			t.Errorf("AddressKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// The seed's example: Kelvin@x and kelvin@x (Kelvin sign) are two different keys.
	if AddressKey("\u212Aelvin@x") == AddressKey("kelvin@x") {
		t.Error("a Kelvin-sign address folded onto an ASCII one")
	}
	// strings.ToLower would fold the Kelvin sign: AddressKey must not.
	if strings.ToLower("\u212A") == AddressKey("\u212A") {
		t.Error("AddressKey behaves like strings.ToLower on U+212A")
	}
}

func TestAddressKeyOutputPassesTheValidator(t *testing.T) {
	for _, raw := range []string{"Jane@Example.com", "\u212Aelvin@X.org", "Q+Z@A.B"} {
		req := Request{Type: TypeErase, RequestID: "r1", SendNo: 1, ExpiresAt: future, KeyKind: KeyAddress, Key: AddressKey(raw)}
		if _, err := EncodeRequest(req); err != nil {
			t.Errorf("AddressKey(%q) refused by the validator: %v", raw, err)
		}
		req.Key = raw
		if _, err := EncodeRequest(req); err == nil {
			t.Errorf("raw %q with A to Z accepted", raw)
		}
	}
}

func TestQuarantineAddress(t *testing.T) {
	got, err := QuarantineAddress("hold-0042")
	if err != nil || got != "quarantine+hold-0042@erasure.invalid" {
		t.Fatalf("QuarantineAddress = %q, %v", got, err)
	}
	if !IsQuarantineAddress(got) {
		t.Error("IsQuarantineAddress refuses its own output")
	}
	if _, err := QuarantineAddress(strings.Repeat("a", 64)); err != nil {
		t.Errorf("64 characters refused: %v", err)
	}
	for _, bad := range []string{"", strings.Repeat("a", 65), "Hold", "hold_1", "hold 1", "hold+1", "höld", "hold@x", "h\n"} {
		_, err := QuarantineAddress(bad)
		var he *HoldIDError
		if !errors.As(err, &he) {
			t.Errorf("QuarantineAddress(%q) error = %v, want *HoldIDError", bad, err)
			continue
		}
		if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("error %q echoes the holdId", err)
		}
	}
}

func TestQuarantineAddressIsAValidAddressKey(t *testing.T) {
	a, _ := QuarantineAddress("h-1")
	if AddressKey(a) != a {
		t.Error("a quarantine address is not its own addressKey")
	}
	req := Request{Type: TypeErase, RequestID: "r1", SendNo: 1, ExpiresAt: future, KeyKind: KeyAddress, Key: a}
	if _, err := EncodeRequest(req); err != nil {
		t.Errorf("a quarantine address is not an ordinary address in a message: %v", err)
	}
}

func TestIsQuarantineAddress(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"quarantine+abc@erasure.invalid", true},
		{"quarantine+a-b-9@erasure.invalid", true},
		{"Quarantine+abc@Erasure.Invalid", true}, // compared through AddressKey
		{"quarantine+@erasure.invalid", false},
		{"quarantine+" + strings.Repeat("a", 65) + "@erasure.invalid", false},
		{"quarantine+a_b@erasure.invalid", false},
		{"quarantine+abc@erasure.invalid.example.com", false},
		{"xquarantine+abc@erasure.invalid", false},
		{"quarantine+abc@erasure.invalid ", false},
		{"quarantine+abc@other.invalid", false},
		{"jane@example.com", false},
		{"", false},
	} {
		if got := IsQuarantineAddress(tc.in); got != tc.want {
			t.Errorf("IsQuarantineAddress(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
