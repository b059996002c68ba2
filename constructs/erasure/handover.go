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
func handOver(ops ...map[string]any) []any {
	if len(ops) == 0 {
		return nil
	}
	loadHandover()
	var refs []any
	list := make([]any, len(ops))
	for i, op := range ops {
		list[i] = asData(op, &refs)
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

// asData is v with every value that is not plain data moved to refs and
// named {"$ref": index} in its place.
func asData(v any, refs *[]any) any {
	switch x := v.(type) {
	case nil, string, bool, int, float64:
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = asData(e, refs)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asData(e, refs)
		}
		return out
	default:
		*refs = append(*refs, x)
		return map[string]any{"$ref": len(*refs) - 1}
	}
}

// A batch is the operations of one construct, handed to the kernel in one
// call by run; an operation names what an earlier one returns by result.
type batch struct{ ops []map[string]any }

// add appends op and returns its index.
func (b *batch) add(op map[string]any) int {
	b.ops = append(b.ops, op)
	return len(b.ops) - 1
}

// result stands, in a later operation, for what operation i returns.
func (b *batch) result(i int) map[string]any { return map[string]any{"$op": i} }

// run hands the operations over and empties the batch.
func (b *batch) run() []any {
	ops := b.ops
	b.ops = nil
	return handOver(ops...)
}

// construct creates the class of an aws-cdk-lib module (its path, as
// "aws-sqs") with props (a jsii struct, or a map of its fields by their
// jsii names): its index.
func (b *batch) construct(scope any, module, class, id string, props any) int {
	return b.add(map[string]any{"op": "new", "module": module, "class": class, "scope": scope, "id": id, "props": props})
}

// scope is a plain construct id under scope (what constructs.NewConstruct
// makes), for a Go construct to stand on.
func (b *batch) scope(scope any, id string) int {
	return b.add(map[string]any{"op": "scope", "scope": scope, "id": id})
}

// read reads the named properties of of (strings, as tokens): its index;
// the result is a map of them by name.
func (b *batch) read(of any, names ...string) int {
	return b.add(map[string]any{"op": "read", "of": of, "names": anyList(names)})
}

// grant is resource.Grant(grantee, actions...).
func (b *batch) grant(resource, grantee any, actions ...string) {
	b.add(map[string]any{"op": "grant", "resource": resource, "grantee": grantee, "actions": anyList(actions)})
}

// grantWrite is resource.GrantWrite(grantee).
func (b *batch) grantWrite(resource, grantee any) {
	b.add(map[string]any{"op": "grantWrite", "resource": resource, "grantee": grantee})
}

// environment is fn.AddEnvironment(name, value).
func (b *batch) environment(fn any, name string, value *string) {
	b.add(map[string]any{"op": "environment", "function": fn, "name": name, "value": *value})
}

// output is a CfnOutput of the join of parts, with its logical id.
func (b *batch) output(scope any, id, description, logicalID string, parts ...string) {
	b.add(map[string]any{"op": "output", "scope": scope, "id": id, "description": description, "logicalId": logicalID, "join": anyList(parts)})
}

// alarm is an Alarm on the queue's metric (its metric<name> method, at
// period with statistic Maximum), breaching past threshold in one period;
// it returns the operation's index.
func (b *batch) alarm(scope any, id, description string, queue any, metric string, threshold float64, compare any) int {
	return b.add(map[string]any{"op": "alarm", "scope": scope, "id": id, "description": description, "queue": queue,
		"metric": metric, "period": minutes(1), "statistic": "Maximum", "threshold": threshold, "comparison": compare})
}

// suppression is the operation that adds cdk-nag suppressions with their
// reasons to each of scopes and their CloudFormation children, as cdk-nag's
// NagSuppressions.AddResourceSuppressions with applyToChildren does, unless
// the app's context turns cdk-nag off (NagContextKey).
func suppression(reasons map[string]string, scopes ...any) map[string]any {
	// In a stable order: a template must not change between two synths of
	// one app (CloudFormation would see a change set in every deploy).
	ids := make([]string, 0, len(reasons))
	for id := range reasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rules := make([]any, len(ids))
	for i, id := range ids {
		rules[i] = map[string]any{"id": id, "reason": reasons[id]}
	}
	return map[string]any{"op": "suppress", "rules": rules, "scopes": scopes, "children": true, "unlessOff": NagContextKey}
}

// suppressionApplying is the operation that suppresses the finding id of
// cdk-nag on each of scopes and their children for the findings appliesTo
// names only (cdk-nag's NagPackSuppression.AppliesTo).
func suppressionApplying(id, reason string, appliesTo []string, scopes ...any) map[string]any {
	return map[string]any{"op": "suppress", "rules": []any{map[string]any{"id": id, "reason": reason, "appliesTo": anyList(appliesTo)}},
		"scopes": scopes, "children": true, "unlessOff": NagContextKey}
}

// suppress adds cdk-nag suppressions with their reasons to each of scopes
// and their children, in one jsii call.
func suppress(reasons map[string]string, scopes ...constructs.IConstruct) {
	targets := make([]any, len(scopes))
	for i, s := range scopes {
		targets[i] = s
	}
	handOver(suppression(reasons, targets...))
}

// subscribe is topic.AddSubscription(SqsSubscription(queue)) with raw
// message delivery.
func (b *batch) subscribe(topic, queue any) {
	b.add(map[string]any{"op": "subscribe", "topic": topic, "queue": queue})
}

// eventSource is fn.AddEventSource(SqsEventSource(queue)) with batchSize,
// window (nil: none) and partial batch failures reported.
func (b *batch) eventSource(fn, queue any, batchSize int, window any) {
	op := map[string]any{"op": "eventSource", "function": fn, "queue": queue, "batchSize": batchSize}
	if window != nil {
		op["window"] = window
	}
	b.add(op)
}
