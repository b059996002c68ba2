package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

type validateCmd struct {
	File    string `arg:"" help:"The message file, or - for standard input."`
	Request bool   `help:"Judge it as the request parser does: a valid response is NOT_A_REQUEST."`
}

type verdict struct {
	Valid bool   `json:"valid"`
	Type  string `json:"type,omitempty"`
	Kind  string `json:"kind,omitempty"` // request or response
	Code  string `json:"code,omitempty"`
	Field string `json:"field,omitempty"` // the contract field at fault, never a value
}

// maxMessageFileBytes bounds validate's input: four times SQS's and SNS's
// 256 KiB message limit. A larger input is refused, never cut and judged.
const maxMessageFileBytes = 1 << 20

func (v *validateCmd) Run(g *globals) error {
	var body []byte
	var err error
	if v.File == "-" {
		body, err = bounded.Read(g.Stdin, "standard input", maxMessageFileBytes)
	} else {
		body, err = bounded.ReadFile(v.File, maxMessageFileBytes)
	}
	if err != nil {
		return fail(exitUsage, "%v", err) // names the input and the limit, never its content
	}
	var out verdict
	var t contract.MessageType
	if v.Request {
		var r contract.Request
		r, err = contract.ParseRequest(body)
		t = r.Type
	} else {
		t, err = contract.Validate(body)
	}
	if err != nil {
		var ce *contract.ContractError
		if errors.As(err, &ce) {
			out.Code, out.Field = string(ce.Code), ce.Field
		}
	} else {
		out.Valid, out.Type = true, string(t)
		out.Kind = "request"
		if t.IsResponse() {
			out.Kind = "response"
		}
	}
	if g.JSON {
		b, _ := json.Marshal(out)
		fmt.Fprintln(g.Stdout, string(b))
	} else if out.Valid {
		fmt.Fprintf(g.Stdout, "valid %s %s\n", out.Kind, out.Type)
	} else if out.Field != "" {
		fmt.Fprintf(g.Stdout, "invalid %s (field %s)\n", out.Code, out.Field)
	} else {
		fmt.Fprintf(g.Stdout, "invalid %s\n", out.Code)
	}
	if !out.Valid {
		return fail(exitCheckFailed, "")
	}
	return nil
}
