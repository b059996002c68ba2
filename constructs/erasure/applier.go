package erasure

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/aws/jsii-runtime-go/runtime"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
)

// ErasureSubscriber, built once per store, hands what it builds (its
// resources, wiring, locks, alarms and cdk-nag suppressions) to the jsii
// kernel as one typed design (design.Design) per step: applier/apply.js, the
// one applier of designs, builds it with aws-cdk-lib's own classes, as it
// does for the TypeScript construct. A store costs two steps instead of
// a round trip for every call and field (TestJsiiCallsPerStore). The
// constructs built once per app (ErasureChannel, ErasureLedger,
// BitmapStoreBucket) hand the same applier their entries of the design's
// types (keys, queue pairs, locks, alarms, cdk-nag suppressions: newKey,
// buildPair, applyLocks, newAlarms, suppressRules), so each design type has
// one applier; what no design type describes (the topic, the ledger's
// table and functions, the dashboard) they build with aws-cdk-go directly.
//
// applier/ is a jsii package: .jsii and index.js are the jsii compiler's
// output of index.ts (TestApplierIsTheJsiiCompilersOutput); apply.js is
// source. The kernel loads it as it loads aws-cdk-lib, from a tarball this
// file builds from the embedded files.

//go:embed applier/package.json applier/index.js applier/.jsii applier/apply.js
var applierSources embed.FS

const (
	applierPackage = "erasure-channel-applier"
	applierVersion = "2.0.0"
	applierFQN     = applierPackage + ".Applier"
)

// applierFiles are the tarball's files, in order.
var applierFiles = []string{".jsii", "apply.js", "index.js", "package.json"}

// applierTarball is the npm tarball of applier/, with fixed times so that
// its digest (the kernel's package cache key) is the same in every process.
func applierTarball() []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range applierFiles {
		body, err := applierSources.ReadFile("applier/" + name)
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

// loadApplier loads applier/ into the kernel, once a process.
var loadApplier = sync.OnceFunc(func() { runtime.Load(applierPackage, applierVersion, applierTarball()) })

// applyDesign hands d over with the objects it names, in one jsii call:
// what it made, by name, and what it read.
func applyDesign(d design.Design, objects map[design.Name]any) (map[design.Name]any, design.Answer) {
	loadApplier()
	text, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Errorf("erasure: writing a design: %w", err)) // typed data: cannot fail
	}
	byName := make(map[string]any, len(objects))
	for n, o := range objects {
		byName[string(n)] = o
	}
	var result map[string]any
	runtime.StaticInvoke(applierFQN, "apply", []any{string(text), byName}, &result)
	var answer design.Answer
	raw, ok := result["answer"].(string)
	if !ok || json.Unmarshal([]byte(raw), &answer) != nil {
		panic(fmt.Errorf("erasure: the applier answered no design.Answer")) // a fault of the applier
	}
	delete(result, "answer")
	made := make(map[design.Name]any, len(result))
	for n, o := range result {
		made[design.Name(n)] = o
	}
	return made, answer
}

// NagContextKey is the context key of an app that says whether it runs
// cdk-nag (design.NagContextKey): false writes no cdk-nag suppressions.
const NagContextKey = design.NagContextKey
