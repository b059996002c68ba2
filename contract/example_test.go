package contract_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
)

// A store's handler validates first: a bad body is a typed error whose
// message is its code alone, never the body.
func ExampleParseRequest() {
	req, err := contract.ParseRequest([]byte(`{"type":"erasure/CHECK","requestId":"req-0003","expiresAt":"2099-01-01T00:00:00Z","keyKind":"ACCOUNT","key":"acct-42"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Type, req.KeyKind, req.Expired(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))

	_, err = contract.ParseRequest([]byte(`{"type":"erasure/CHECK","key":"Kelvin@Example.com"}`))
	var ce *contract.ContractError
	fmt.Println(errors.As(err, &ce), err)
	// Output:
	// erasure/CHECK ACCOUNT false
	// true INVALID_MESSAGE
}

// Every store compares addresses through AddressKey: A to Z lowercased,
// everything else (a Kelvin sign included) as typed.
func ExampleAddressKey() {
	fmt.Println(contract.AddressKey("Kelvin@Example.COM"))
	fmt.Println(contract.AddressKey("\u212Aelvin@example.com") == "kelvin@example.com")
	// Output:
	// kelvin@example.com
	// false
}
