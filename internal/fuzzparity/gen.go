package fuzzparity

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/schema"
)

// Generator makes inputs three ways: shared fixtures as they are, messages
// built from the schema's shapes with valid and edge values (serialised with
// random order, whitespace and escapes), and byte-level mutations of either.
type Generator struct {
	r     *rand.Rand
	seeds [][]byte
}

// NewGenerator returns a generator seeded with seed and the shared fixtures.
func NewGenerator(seed uint64) (*Generator, error) {
	g := &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	err := fs.WalkDir(schema.Fixtures, "fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "manifest.json") {
			return err
		}
		b, err := fs.ReadFile(schema.Fixtures, path)
		g.seeds = append(g.seeds, b)
		return err
	})
	return g, err
}

// Next returns one input.
func (g *Generator) Next() []byte {
	var b []byte
	switch n := g.r.IntN(10); {
	case n < 1:
		b = append([]byte(nil), g.seeds[g.r.IntN(len(g.seeds))]...)
	case n < 6:
		b = g.message()
	default:
		if g.r.IntN(2) == 0 {
			b = append([]byte(nil), g.seeds[g.r.IntN(len(g.seeds))]...)
		} else {
			b = g.message()
		}
		for k := 1 + g.r.IntN(2); k > 0; k-- {
			b = g.mutate(b)
		}
	}
	return b
}

func (g *Generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// Field values: mostly valid, some at or past an edge of the schema.
func (g *Generator) timestamp() string {
	if g.r.IntN(3) != 0 {
		return g.pick("2099-01-01T00:00:00Z", "2030-06-15T12:30:45.123Z", "2028-02-29T23:59:59Z", "2031-12-31T23:59:59.5Z")
	}
	return g.pick("2099-01-01T00:00:00Z", "2030-06-15T12:30:45.123Z", "2028-02-29T23:59:59Z", "2100-02-29T00:00:00Z",
		"2030-06-15T12:30:45+00:00", "2030-06-15t12:30:45z", "2030-06-15 12:30:45Z", "2030-06-15T24:00:00Z",
		"2030-06-15T23:59:60Z", "2030-13-01T00:00:00Z", "2030-06-15T12:30:45.1234567890Z", "2030-06-15T12:30:45,5Z",
		"+002030-06-15T12:30:45Z", "2030-06-15T12:30:45Z\n", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"2030-02-30T00:00:00Z", "2030-04-31T00:00:00Z", "", "2030-06-15T12:30Z")
}

func (g *Generator) key(kind string) string {
	if g.r.IntN(3) != 0 {
		if kind == "ADDRESS" {
			return g.pick("jane.doe@example.com", "kelvin@x.test", "\u212aelvin@x.test", "quarantine+h1@erasure.invalid", "ä@example.com")
		}
		return g.pick("acct-0042", "12345", "😀", strings.Repeat("x", 128))
	}
	if kind == "ADDRESS" {
		return g.pick("jane.doe@example.com", "Jane@example.com", "\u212aelvin@x.test", "kelvin@x.test", "a@b", "@b", "a@",
			"noat", "quarantine+h1@erasure.invalid", strings.Repeat("a", 310)+"@example.com", "ä@example.com", "a@b\u0000",
			"ﬁ@example.com", "ǅ@x.test", " jane@example.com", "jane@EXAMPLE.com", "jane@example.com\u2028")
	}
	return g.pick("acct-0042", "12345", "", "A", strings.Repeat("x", 128), strings.Repeat("x", 129), "acct\u0001", "acct 42", "😀")
}

func (g *Generator) number() any {
	return g.pick("1", "2", "0", "-1", "1.0", "1e0", "9007199254740993", "99999999999999999999999", "01", "-0", "2.5", "1E2", `"1"`, "true", "null")
}

var messageTypes = []string{"erasure/ERASE", "erasure/REFILE", "erasure/CLASSIFY", "erasure/CHECK", "erasure/ACK", "erasure/REFILE_ACK", "erasure/HOLDINGS"}

// message builds one message of a random type from the schema's shapes.
func (g *Generator) message() []byte {
	typ := messageTypes[g.r.IntN(len(messageTypes))]
	if g.r.IntN(20) == 0 {
		typ = g.pick("erasure/erase", "ERASE", "erasure/NOPE", "")
	}
	kind := g.pick("ACCOUNT", "ADDRESS", "ACCOUNT", "ADDRESS", "account", "EMAIL")
	f := map[string]any{"type": typ, "requestId": g.pick("6f1c2e0a-0d5b-4c1e-9d1a-3f2b7e8c9a10", "r", strings.Repeat("r", 128), strings.Repeat("r", 129), "", "id\u0007", "id\u007f", "id\u0085", "\ud7ff")}
	raw := map[string]string{} // fields written as raw JSON lexemes
	setNum := func(name string) {
		if g.r.IntN(3) == 0 {
			raw[name] = g.number().(string)
		} else {
			f[name] = 1 + g.r.IntN(3)
		}
	}
	switch typ {
	case "erasure/ERASE", "erasure/CLASSIFY", "erasure/CHECK":
		f["expiresAt"], f["keyKind"], f["key"] = g.timestamp(), kind, g.key(kind)
		if typ == "erasure/ERASE" {
			setNum("sendNo")
		}
	case "erasure/REFILE":
		f["expiresAt"], f["keyKind"], f["from"], f["to"], f["accountId"] = g.timestamp(), g.pick("ADDRESS", "ADDRESS", "ACCOUNT"), g.key("ADDRESS"), g.key("ADDRESS"), g.key("ACCOUNT")
		setNum("sendNo")
	case "erasure/ACK", "erasure/REFILE_ACK":
		setNum("sendNo")
		f["subscriber"] = g.pick("space", "ledger-2", "Space", "1abc", "a-", strings.Repeat("s", 65), "")
		if typ == "erasure/ACK" {
			f["outcome"] = g.pick("DONE", "NOT_APPLICABLE", "MOVED", "done")
		} else {
			f["outcome"] = g.pick("MOVED", "NONE_OWNED", "NOT_MOVED", "NOT_APPLICABLE", "DONE")
		}
	case "erasure/HOLDINGS":
		f["subscriber"], f["keyKind"], f["key"] = "space", kind, g.key(kind)
		f["answer"] = g.pick("HOLDS_DATA", "HOLDS_NONE", "CANNOT_ANSWER", "NOT_APPLICABLE", "DONE")
	}
	// Structural edits: drop a field, add one, null one, nest one.
	names := make([]string, 0, len(f))
	for k := range f {
		names = append(names, k)
	}
	sort.Strings(names)
	switch g.r.IntN(12) {
	case 0:
		delete(f, names[g.r.IntN(len(names))])
	case 1:
		f[g.pick("extra", "Key", "KEY", "\u212aey", "type ", "sendno")] = "x"
	case 2:
		raw[names[g.r.IntN(len(names))]] = "null"
	case 3:
		raw[names[g.r.IntN(len(names))]] = g.pick(`{}`, `[]`, `["a"]`, `{"a":1}`, `[[[[1]]]]`)
	}
	return g.serialise(f, raw)
}

// serialise writes f as a JSON object with random member order, whitespace,
// string escapes, and sometimes a duplicated or case-varied member name.
func (g *Generator) serialise(f map[string]any, raw map[string]string) []byte {
	names := make([]string, 0, len(f)+len(raw))
	for k := range f {
		if _, ok := raw[k]; !ok {
			names = append(names, k)
		}
	}
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	if g.r.IntN(15) == 0 && len(names) > 0 { // a duplicate, exact or case-varied
		d := names[g.r.IntN(len(names))]
		if g.r.IntN(2) == 0 {
			d = strings.ToUpper(d[:1]) + d[1:]
		}
		names = append(names, d)
		if _, ok := f[d]; !ok {
			if _, ok := raw[d]; !ok {
				f[d] = "dup"
			}
		}
	}
	ws := func() string {
		switch n := g.r.IntN(200); {
		case n < 150:
			return ""
		case n < 199:
			return g.pick(" ", "\n", "\t", "\r\n", "  ")
		default: // not JSON whitespace
			return g.pick("\u00a0", "\v", "\f", "\u2028")
		}
	}
	var sb strings.Builder
	sb.WriteString(ws() + "{")
	for i, n := range names {
		if i > 0 {
			sb.WriteString(ws() + ",")
		}
		sb.WriteString(ws() + g.str(n) + ws() + ":" + ws())
		if r, ok := raw[n]; ok {
			sb.WriteString(r)
		} else if v, ok := f[n]; ok {
			switch x := v.(type) {
			case string:
				sb.WriteString(g.str(x))
			default:
				b, _ := json.Marshal(x)
				sb.Write(b)
			}
		} else {
			sb.WriteString(`"dup"`)
		}
	}
	sb.WriteString(ws() + "}" + ws())
	return []byte(sb.String())
}

// str writes s as a JSON string, escaping some characters at random.
func (g *Generator) str(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&sb, `\u%04x`, r)
		case g.r.IntN(25) == 0 && r < 0x10000:
			fmt.Fprintf(&sb, g.pick(`\u%04x`, `\u%04X`), r)
		case g.r.IntN(60) == 0 && r == '/':
			sb.WriteString(`\/`)
		case r >= 0x10000 && g.r.IntN(4) == 0:
			r -= 0x10000
			fmt.Fprintf(&sb, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// interesting are byte sequences that sit on a parser's edges.
var interesting = [][]byte{
	{0}, {0x80}, {0xc0, 0x80}, {0xc2}, {0xe0, 0x80, 0x80}, {0xed, 0xa0, 0x80}, {0xed, 0xbf, 0xbf}, {0xf4, 0x8f, 0xbf, 0xbf},
	{0xf4, 0x90, 0x80, 0x80}, {0xf8}, {0xff}, {0xef, 0xbb, 0xbf}, []byte(`\ud800`), []byte(`\udc00`), []byte(`\ud800\udc00`),
	[]byte(`\u0000`), []byte(`\u212a`), []byte(`\"`), []byte(`\\`), []byte(`\x`), []byte(`\u12`), []byte(`"`), []byte(`{`),
	[]byte(`}`), []byte(`[`), []byte(`]`), []byte(`,`), []byte(`:`), []byte(` `), []byte("\n"), []byte(`e`), []byte(`E+`),
	[]byte(`-`), []byte(`.`), []byte(`0`), []byte(`9`), []byte(`null`), []byte(`true`), []byte(`1e400`), []byte("\u2028"),
	[]byte(`Z`), []byte(`z`), []byte(`T`), []byte(`+00:00`), []byte(`@`), []byte(`A`),
}

// mutate changes b at the byte level.
func (g *Generator) mutate(b []byte) []byte {
	pos := func(extra int) int { return g.r.IntN(len(b) + extra) }
	if len(b) == 0 {
		return append(b, interesting[g.r.IntN(len(interesting))]...)
	}
	switch g.r.IntN(9) {
	case 0: // flip a bit
		i := pos(0)
		b[i] ^= 1 << g.r.IntN(8)
	case 1: // replace a byte
		b[pos(0)] = byte(g.r.IntN(256))
	case 2, 3: // insert an interesting sequence
		i := pos(1)
		ins := interesting[g.r.IntN(len(interesting))]
		b = append(b[:i], append(append([]byte(nil), ins...), b[i:]...)...)
	case 4: // delete a range
		i := pos(0)
		j := min(len(b), i+1+g.r.IntN(8))
		b = append(b[:i], b[j:]...)
	case 5: // duplicate a range
		i := pos(0)
		j := min(len(b), i+1+g.r.IntN(16))
		k := pos(1)
		chunk := append([]byte(nil), b[i:j]...)
		b = append(b[:k], append(chunk, b[k:]...)...)
	case 6: // splice with a seed
		s := g.seeds[g.r.IntN(len(g.seeds))]
		i, j := pos(0), g.r.IntN(len(s)+1)
		b = append(append([]byte(nil), b[:i]...), s[j:]...)
	case 7: // swap the case of an ASCII letter
		i := pos(0)
		if c := b[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b[i] ^= 0x20
		}
	case 8: // append trailing data
		b = append(b, interesting[g.r.IntN(len(interesting))]...)
	}
	return b
}
