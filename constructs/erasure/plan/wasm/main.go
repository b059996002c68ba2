//go:build wasip1

// Command wasm is plan's decisions as a WebAssembly reactor (GOOS=wasip1,
// -tags erasureplan, -buildmode=c-shared): the TypeScript construct library
// calls it synchronously. A call writes its JSON request into memory from alloc,
// calls plan and reads the JSON answer at the returned place:
//
//	{"call": "subscriber", "input": <plan.SubscriberInput>}             → <plan.SubscriberStep>
//	{"call": "notApplicableMetric", "name": n}                           → <design.Metric>
//	{"call": "notApplicableAlarm", "name": n, "id": id, "threshold": t} → <design.Design>
//
// An answer that is not the call's is {"error": "..."}: a request it cannot
// read or a call it does not know, named without echoing the request.
package main

import (
	"encoding/json"
	"unsafe"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

func main() {}

// buffers keeps each buffer handed out alive until the next call frees it.
var buffers = map[uintptr][]byte{}

// alloc is n bytes the caller writes a request into.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	b := make([]byte, n)
	if n == 0 {
		return 0
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	buffers[p] = b
	return uint32(p)
}

// free releases a buffer alloc or call handed out.
//
//go:wasmexport free
func free(p uint32) { delete(buffers, uintptr(p)) }

// call answers the request of n bytes at p: the answer's place in the high
// 32 bits, its length in the low (free it when read).
//
//go:wasmexport call
func call(p, n uint32) uint64 {
	var req []byte
	if n > 0 {
		req = buffers[uintptr(p)][:n]
	}
	out := answer(req)
	q := alloc(uint32(len(out)))
	copy(buffers[uintptr(q)], out)
	return uint64(q)<<32 | uint64(len(out))
}

type request struct {
	Call      string               `json:"call"`
	Input     plan.SubscriberInput `json:"input"`
	Name      string               `json:"name"`
	ID        string               `json:"id"`
	Threshold float64              `json:"threshold"`
}

func answer(raw []byte) []byte {
	var r request
	if err := json.Unmarshal(raw, &r); err != nil {
		return failure("the request is not a plan call")
	}
	var v any
	switch r.Call {
	case "subscriber":
		v = plan.Subscriber(r.Input)
	case "notApplicableMetric":
		v = design.NotApplicableMetric(r.Name)
	case "notApplicableAlarm":
		v = design.NotApplicableAlarm(r.Name, r.ID, r.Threshold)
	default:
		return failure("a call the plan does not know")
	}
	out, err := json.Marshal(v)
	if err != nil {
		return failure("the answer could not be written")
	}
	return out
}

func failure(why string) []byte {
	out, _ := json.Marshal(map[string]string{"error": why})
	return out
}
