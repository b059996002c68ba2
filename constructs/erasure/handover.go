package erasure

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go/runtime"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// The constructs decide every lock statement, every metadata entry on a
// locked resource and every cdk-nag suppression in Go, as data, and hand a
// list of them to the jsii kernel in one call: handover/index.js carries
// them out with the aws-cdk-lib calls the Go code made one round trip at a
// time (a statement, its AddToResourcePolicy and the result's fields, each
// metadata entry, each construct's node and default child). A store costs
// about half the round trips it did (TestJsiiCallsPerStore), and the
// templates are byte for byte what they were.
//
// handover/ is a jsii assembly of one class with one static method, written
// by hand (assembly.json is its .jsii): the kernel loads it as it loads
// aws-cdk-lib, from a tarball this file builds from the embedded sources.

//go:embed handover/package.json handover/index.js handover/assembly.json
var handoverSources embed.FS

const (
	handoverPackage = "erasure-channel-handover"
	handoverVersion = "1.0.0"
	handoverFQN     = handoverPackage + ".Handover"
)

// handoverTarball is the npm tarball of handover/: package/package.json,
// package/index.js and package/.jsii, with fixed times so that its digest
// (the kernel's package cache key) is the same in every process.
func handoverTarball() []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := map[string]string{"package.json": "package.json", "index.js": "index.js", ".jsii": "assembly.json"}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		body, err := handoverSources.ReadFile("handover/" + files[name])
		if err != nil {
			panic(err) // embedded: cannot be missing
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			panic(err)
		}
		if _, err := tw.Write(body); err != nil {
			panic(err)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	if err := gz.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// loadHandover loads handover/ into the kernel, once a process.
var loadHandover = sync.OnceFunc(func() { runtime.Load(handoverPackage, handoverVersion, handoverTarball()) })

// handOver carries out ops in order, in one jsii call, and returns what
// each returned (nil for most; the construct an operation creates).
//
// What is pure data (maps, lists, strings, numbers, booleans) crosses as one
// JSON text: the kernel deserializes a jsii value field by field, at a cost
// per field that dwarfed the work. Every other value (a construct, a jsii
// struct, an enum member, a Duration) crosses as a jsii value in refs, and
// the text names it {"$ref": i}.
func handOver(ops ...map[string]any) []any { return handOverNamed(nil, ops...) }

// handOverNamed is handOver of a plan's operations, each {"$name": n} in
// them the object names[n] (a name it does not hold is a fault of the plan).
func handOverNamed(names map[string]any, ops ...map[string]any) []any {
	if len(ops) == 0 {
		return nil
	}
	loadHandover()
	var refs []any
	list := make([]any, len(ops))
	for i, op := range ops {
		list[i] = asData(op, &refs, names)
	}
	text, err := json.Marshal(list)
	if err != nil {
		panic(fmt.Errorf("erasure: handing over to the jsii kernel: %w", err)) // data only: cannot fail
	}
	if refs == nil {
		refs = []any{}
	}
	var results []any
	runtime.StaticInvoke(handoverFQN, "apply", []any{string(text), refs}, &results)
	return results
}

// asData is v with every value that is not plain data, and every object
// {"$name": n} names, moved to refs and named {"$ref": index} in its place.
func asData(v any, refs *[]any, names map[string]any) any {
	switch x := v.(type) {
	case nil, string, bool, int, float64:
		return x
	case map[string]any:
		if n, ok := x["$name"].(string); ok && len(x) == 1 {
			o, held := names[n]
			if !held {
				panic(fmt.Errorf("erasure: the plan names %q, which nothing made", n))
			}
			*refs = append(*refs, o)
			return map[string]any{"$ref": len(*refs) - 1}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = asData(e, refs, names)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asData(e, refs, names)
		}
		return out
	default:
		*refs = append(*refs, x)
		return map[string]any{"$ref": len(*refs) - 1}
	}
}

// A batch is the operations of one construct, handed to the kernel in one
// call by run (plan.Batch builds them).
type batch struct{ plan.Batch }

// run hands the operations over and empties the batch.
func (b *batch) run() []any { return handOver(b.Take()...) }

// suppress adds cdk-nag suppressions with their reasons to each of scopes
// and their children, in one jsii call.
func suppress(reasons map[string]string, scopes ...constructs.IConstruct) {
	targets := make([]any, len(scopes))
	for i, s := range scopes {
		targets[i] = s
	}
	handOver(plan.Suppression(reasons, targets...))
}

// NagContextKey is the context key of an app that says whether it runs
// cdk-nag (plan.NagContextKey): false writes no cdk-nag suppressions.
const NagContextKey = plan.NagContextKey

// applyPlan hands ops (a plan's, naming objects by plan.Named) to the
// kernel in one call, with each name resolved from names; what an operation
// makes under its "as" joins names. It returns what each operation returned.
func applyPlan(ops []map[string]any, names map[string]any) []any {
	results := handOverNamed(names, ops...)
	for i, r := range results {
		if as, ok := ops[i]["as"].(string); ok {
			names[as] = r
		}
	}
	return results
}

// answersOf is each result as plan reads it: plain data (what a read
// returns), nil for an object.
func answersOf(results []any) []any {
	answers := make([]any, len(results))
	for i, r := range results {
		switch r.(type) {
		case map[string]any, string:
			answers[i] = r
		}
	}
	return answers
}
