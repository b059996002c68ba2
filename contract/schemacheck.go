//go:build !erasureplan

// The reference validator is left out of the plan module (constructs/erasure/plan/wasm,
// built with -tags erasureplan): its packages' initialisation alone cost every
// TypeScript synth about 200 ms in WebAssembly, and the plan validates no message.

package contract

import (
	"bytes"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/linn-cloud/erasure-channel/schema"
)

var (
	compiledOnce sync.Once
	compiled     *jsonschema.Schema
	compileErr   error
)

func contractSchema() (*jsonschema.Schema, error) {
	compiledOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.ContractSchemaJSON))
		if err != nil {
			compileErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(schema.ContractSchemaURL, doc); err != nil {
			compileErr = err
			return
		}
		compiled, compileErr = c.Compile(schema.ContractSchemaURL)
	})
	return compiled, compileErr
}

// ValidateWithSchema judges body by the wire profile and then by the JSON
// Schema itself (santhosh-tekuri/jsonschema, which passes the official 2020-12
// suite), as a twin's reference validator would. It returns the message type,
// or a *ContractError with code NOT_JSON or INVALID_MESSAGE. It is the slow,
// reference path: Validate and the Parse functions are the fast path, and the
// package's tests and fuzz target keep the two in agreement. The schema
// library's own error, which quotes the instance, never leaves this function.
func ValidateWithSchema(body []byte) (MessageType, error) {
	var w wireObject
	if err := scanWire(body, &w); err != nil {
		return "", err
	}
	sch, err := contractSchema()
	if err != nil {
		panic("contract: embedded schema does not compile") // guarded by the package's tests
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return "", &ContractError{Code: CodeNotJSON, Reason: "syntax"}
	}
	if err := sch.Validate(inst); err != nil {
		return "", &ContractError{Code: CodeInvalidMessage, Reason: "schema"}
	}
	t, _ := inst.(map[string]any)["type"].(string)
	return MessageType(t), nil
}
