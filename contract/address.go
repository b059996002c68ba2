package contract

import "strings"

// AddressKey returns the key every store compares addresses with: raw with
// A to Z lowercased and every other character left as typed. It is not
// strings.ToLower: Unicode lowercasing differs between Go, JavaScript, .NET
// and Postgres, so a Kelvin sign (U+212A) stays a Kelvin sign and
// "\u212Aelvin@x" and "kelvin@x" are two different keys.
func AddressKey(raw string) string {
	i := 0
	for i < len(raw) && !(raw[i] >= 'A' && raw[i] <= 'Z') {
		i++
	}
	if i == len(raw) {
		return raw
	}
	b := []byte(raw)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// The parts of a quarantine address: quarantine+<holdId>@erasure.invalid.
// .invalid is a reserved top-level domain (RFC 2606), so the address can
// never be a real mailbox.
const (
	quarantinePrefix = "quarantine+"
	quarantineDomain = "@erasure.invalid"
	holdIDMaxLen     = 64
)

// HoldIDError is returned by QuarantineAddress for a holdId that is not 1 to
// 64 of a-z, 0-9 and -. It is the Go form of the seed's RangeError and never
// carries the holdId.
type HoldIDError struct{}

func (*HoldIDError) Error() string {
	return "contract: holdId must be 1 to 64 of a-z, 0-9 and -"
}

// QuarantineAddress returns quarantine+<holdID>@erasure.invalid: the address a
// deleted customer's address-keyed rows move to while an erasure is pending.
func QuarantineAddress(holdID string) (string, error) {
	if !isHoldID(holdID) {
		return "", &HoldIDError{}
	}
	return quarantinePrefix + holdID + quarantineDomain, nil
}

// IsQuarantineAddress reports whether address is one QuarantineAddress
// returns. It compares through AddressKey, as stores compare addresses, so
// an address typed with capitals is recognised too: a store never sends mail
// to it.
func IsQuarantineAddress(address string) bool {
	k := AddressKey(address)
	hold, ok := strings.CutPrefix(k, quarantinePrefix)
	if !ok {
		return false
	}
	hold, ok = strings.CutSuffix(hold, quarantineDomain)
	return ok && isHoldID(hold)
}

func isHoldID(s string) bool {
	if len(s) < 1 || len(s) > holdIDMaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}
