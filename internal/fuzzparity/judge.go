package fuzzparity

import (
	"errors"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Verdicts are every Go judgement of one input.
type Verdicts struct {
	Fast, Schema, Request, Response string
}

func code(err error) string {
	var ce *contract.ContractError
	if errors.As(err, &ce) {
		return string(ce.Code)
	}
	return "UNTYPED_ERROR"
}

// JudgeGo runs the input through the fast parser, the schema path and the
// request and response parsers.
func JudgeGo(b []byte) Verdicts {
	var v Verdicts
	if t, err := contract.Validate(b); err != nil {
		v.Fast = code(err)
	} else {
		v.Fast = "VALID:" + string(t)
	}
	if t, err := contract.ValidateWithSchema(b); err != nil {
		v.Schema = code(err)
	} else {
		v.Schema = "VALID:" + string(t)
	}
	if _, err := contract.ParseRequest(b); err != nil {
		v.Request = code(err)
	} else {
		v.Request = "OK"
	}
	if _, err := contract.ParseResponse(b); err != nil {
		v.Response = code(err)
	} else {
		v.Response = "OK"
	}
	return v
}

// requestVerdict is what ParseRequest must say given a validator's verdict.
func requestVerdict(validate string) string {
	switch validate {
	case "NOT_JSON", "INVALID_MESSAGE":
		return validate
	}
	if contract.MessageType(validate[len("VALID:"):]).IsRequest() {
		return "OK"
	}
	return string(contract.CodeNotARequest)
}

// Disagreement says how the judges of one input differ, or "" if they agree:
// the fast parser with the TypeScript twin, with the schema path, and the
// request and response parsers with the validators.
func Disagreement(v Verdicts, twin string) string {
	switch {
	case v.Fast != twin:
		return "go fast parser " + v.Fast + ", ts twin " + twin
	case v.Schema != v.Fast:
		return "go schema path " + v.Schema + ", go fast parser " + v.Fast
	case v.Request != requestVerdict(v.Fast):
		return "go ParseRequest " + v.Request + ", validators " + v.Fast
	}
	if v.Fast == "NOT_JSON" || v.Fast == "INVALID_MESSAGE" {
		if v.Response != v.Fast {
			return "go ParseResponse " + v.Response + ", validators " + v.Fast
		}
	} else if t := contract.MessageType(v.Fast[len("VALID:"):]); !t.IsRequest() && v.Response != "OK" {
		return "go ParseResponse " + v.Response + " on a valid response"
	} else if t.IsRequest() && v.Response != string(contract.CodeNotAResponse) {
		return "go ParseResponse " + v.Response + " on a valid request"
	}
	return ""
}
