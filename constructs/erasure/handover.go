package erasure

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go/runtime"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// The constructs hand what they build many of (a store's resources and
// wiring, every lock statement, every cdk-nag suppression) to the jsii
// kernel as one typed design (plan.Design) per call: handover/apply.js, the
// one applier, builds it with aws-cdk-lib's own classes. A store costs three
// or four jsii calls instead of a round trip for every call and field
// (TestJsiiCallsPerStore).
//
// handover/ is a jsii package: .jsii and index.js are the jsii compiler's
// output of index.ts (TestHandoverIsTheJsiiCompilersOutput); apply.js is
// source. The kernel loads it as it loads aws-cdk-lib, from a tarball this
// file builds from the embedded files.

//go:embed handover/package.json handover/index.js handover/.jsii handover/apply.js
var handoverSources embed.FS

const (
	handoverPackage = "erasure-channel-handover"
	handoverVersion = "2.0.0"
	handoverFQN     = handoverPackage + ".Handover"
)

// handoverFiles are the tarball's files, in order.
var handoverFiles = []string{".jsii", "apply.js", "index.js", "package.json"}

// handoverTarball is the npm tarball of handover/, with fixed times so that
// its digest (the kernel's package cache key) is the same in every process.
func handoverTarball() []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range handoverFiles {
		body, err := handoverSources.ReadFile("handover/" + name)
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

// A handover is one design and the objects it names, for one jsii call.
type handover struct {
	design  plan.Design
	objects map[string]any
	names   map[any]plan.Name
}

// newHandover is an empty hand-over holding objects by name.
func newHandover(objects map[plan.Name]any) *handover {
	h := &handover{design: plan.NewDesign(), objects: map[string]any{}, names: map[any]plan.Name{}}
	for n, o := range objects {
		h.objects[string(n)] = o
	}
	return h
}

// name is the name the hand-over holds o by, given it on first use.
func (h *handover) name(o any) plan.Name {
	if n, ok := h.names[o]; ok {
		return n
	}
	n := plan.Name(fmt.Sprintf("object%d", len(h.names)))
	h.names[o] = n
	h.objects[string(n)] = o
	return n
}

// apply hands the design over in one jsii call: what it made, by name, and
// what it read.
func (h *handover) apply() (map[plan.Name]any, plan.Answer) {
	if h.design.Empty() {
		return nil, plan.Answer{}
	}
	loadHandover()
	text, err := json.Marshal(h.design)
	if err != nil {
		panic(fmt.Errorf("erasure: writing a design: %w", err)) // typed data: cannot fail
	}
	var result map[string]any
	runtime.StaticInvoke(handoverFQN, "apply", []any{string(text), h.objects}, &result)
	var answer plan.Answer
	raw, ok := result["answer"].(string)
	if !ok || json.Unmarshal([]byte(raw), &answer) != nil {
		panic(fmt.Errorf("erasure: the applier answered no plan.Answer")) // a fault of the applier
	}
	delete(result, "answer")
	made := make(map[plan.Name]any, len(result))
	for n, o := range result {
		made[plan.Name(n)] = o
	}
	h.design = plan.NewDesign()
	return made, answer
}

// applyDesign hands d over with objects: what it made, and what it read.
func applyDesign(d plan.Design, objects map[plan.Name]any) (map[plan.Name]any, plan.Answer) {
	h := newHandover(objects)
	h.design = d
	return h.apply()
}

// suppress adds cdk-nag suppressions with their reasons to each of scopes
// and their children, in one jsii call.
func suppress(reasons map[string]string, scopes ...constructs.IConstruct) {
	h := newHandover(nil)
	names := make([]plan.Name, len(scopes))
	for i, s := range scopes {
		names[i] = h.name(s)
	}
	h.design.Suppressions = []plan.Suppression{plan.NewSuppression(reasons, names...)}
	h.apply()
}

// NagContextKey is the context key of an app that says whether it runs
// cdk-nag (plan.NagContextKey): false writes no cdk-nag suppressions.
const NagContextKey = plan.NagContextKey
