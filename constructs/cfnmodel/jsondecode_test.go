package cfnmodel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// jsonSeeds are documents at the edges of the grammar, each of which
// decodeJSON must take or refuse as encoding/json does.
var jsonSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, -0.5e+3, 2E-2, true, false, null, "x"]} `, `"\u00e9\ud83d\ude00"`,
	`"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\udc00\ud83d"`, `"\u12"`, `"\ud83d\uzzzz"`, "\"\xff\xfe\"", "\"a\x01\"",
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `-0`, `1e999`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1}x`, `tru`, `nulll`,
	`{"k":1,"k":2}`, `"\/\b\f\n\r\t\\\""`, `"\x"`, ``, ` `, `{"a":{"b":{"c":[[[]]]}}}`,
}

// FuzzDecodeJSONAgreesWithEncodingJSON: for any input, decodeJSON accepts
// exactly what json.Unmarshal into an any accepts, and gives the same value.
func FuzzDecodeJSONAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "cdk.json")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := decodeJSON(b)
		var want any
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: decodeJSON error %v, encoding/json error %v", b, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decodeJSON %#v, encoding/json %#v", b, got, want)
		}
	})
}

// TestDecodeJSONDepth: nesting past encoding/json's limit is refused by both.
func TestDecodeJSONDepth(t *testing.T) {
	for _, n := range []int{maxJSONDepth, maxJSONDepth + 1} {
		b := make([]byte, 0, 2*n)
		for range n {
			b = append(b, '[')
		}
		for range n {
			b = append(b, ']')
		}
		_, gotErr := decodeJSON(b)
		var want any
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("depth %d: decodeJSON error %v, encoding/json error %v", n, gotErr, wantErr)
		}
	}
}

// BenchmarkDecodeTemplate: one synthesized store's template (testdata),
// decodeJSON against encoding/json.
func BenchmarkDecodeTemplate(b *testing.B) {
	doc := []byte(`{"Resources":{}}`)
	if m, _ := filepath.Glob(filepath.Join("testdata", "*.json")); len(m) > 0 {
		doc, _ = os.ReadFile(m[0])
	}
	b.Run("decodeJSON", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for range b.N {
			if _, err := decodeJSON(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for range b.N {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMetadataFileAgreesWithEncodingJSON: an additional metadata file as CDK
// writes it, and files of other shapes, are taken or refused by
// metadataFile as json.Unmarshal into the same entries takes them.
func TestMetadataFileAgreesWithEncodingJSON(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "store-synthesized.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{real, []byte(`{}`), []byte(`{"/a":null}`), []byte(`{"/a":[null,{"type":"x"}]}`), []byte(`[]`),
		[]byte(`{"/a":{}}`), []byte(`{"/a":[1]}`), []byte(`{"/a":[{"type":5}]}`), []byte(`{"/a":[{"type":"t","data":{"k":[1,"v"]}}]}`), []byte(`{`)} {
		got, gotErr := metadataFile(b)
		var want map[string][]metadataEntry
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%.60s: metadataFile error %v, encoding/json error %v", b, gotErr, wantErr)
			continue
		}
		if gotErr == nil && !reflect.DeepEqual(normalise(got), normalise(want)) {
			t.Errorf("%.60s: metadataFile %v, encoding/json %v", b, got, want)
		}
	}
}

// normalise treats a nil list as an empty one: both mean no entries.
func normalise(m map[string][]metadataEntry) map[string][]metadataEntry {
	out := map[string][]metadataEntry{}
	for k, v := range m {
		out[k] = append([]metadataEntry{}, v...)
	}
	return out
}

// TestDecodeManifestAgreesWithEncodingJSON: a manifest.json as CDK writes it,
// and manifests whose read fields have other types, are taken or refused by
// decodeManifest as json.Unmarshal into the manifest struct takes them.
func TestDecodeManifestAgreesWithEncodingJSON(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "manifest-synthesized.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{real, []byte(`{}`), []byte(`{"artifacts":null}`), []byte(`{"artifacts":{"a":null}}`), []byte(`{"artifacts":[]}`),
		[]byte(`{"artifacts":{"a":{"type":1}}}`), []byte(`{"artifacts":{"a":{"properties":{"templateFile":["x"]}}}}`),
		[]byte(`{"artifacts":{"a":{"type":"aws:cloudformation:stack","environment":"aws://1/r","properties":{"templateFile":"a.json"},"metadata":{"/a":[{"type":"t","data":1}]}}}}`),
		[]byte(`{"artifacts":{"a":{"metadata":{"/a":{}}}}}`), []byte(`{"version":"55.0.0"}x`)} {
		got, gotErr := decodeManifest(b)
		var want manifest
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%.80s: decodeManifest error %v, encoding/json error %v", b, gotErr, wantErr)
			continue
		}
		if gotErr != nil {
			continue
		}
		if len(got.Artifacts) != len(want.Artifacts) {
			t.Errorf("%.80s: %d artifacts, encoding/json %d", b, len(got.Artifacts), len(want.Artifacts))
		}
		for name, w := range want.Artifacts {
			g := got.Artifacts[name]
			gm, wm := g.Metadata, w.Metadata
			g.Metadata, w.Metadata = nil, nil
			if !reflect.DeepEqual(g, w) || !reflect.DeepEqual(normalise(gm), normalise(wm)) {
				t.Errorf("%.80s: artifact %s: decodeManifest %+v, encoding/json %+v", b, name, got.Artifacts[name], want.Artifacts[name])
			}
		}
	}
}
