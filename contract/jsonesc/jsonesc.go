// Package jsonesc is what RFC 8259 says a string's escapes stand for, shared
// by the project's two hand-written JSON readers: the contract's strict wire
// profile (contract) and the template decoder (constructs/cfnmodel), which
// differ in what they accept around them (lone surrogates, invalid UTF-8),
// not in these.
package jsonesc

// Simple is the byte a one-character escape stands for (\" \\ \/ \b \f \n
// \r \t), given the character after the backslash; ok is false for any other.
func Simple(e byte) (b byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// Hex4 reads the four hex digits of a \u escape from the start of b.
func Hex4(b []byte) (r rune, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
