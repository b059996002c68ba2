// Package schema embeds the files the erasure channel shares with its
// TypeScript and .NET twins: the JSON Schema of every message, the channel
// constants, the capability fixtures and the raw-byte fixture set.
//
// The files are the source of truth; this package only hands their bytes to
// Go code. Parsing and checking them is the contract package's job.
package schema

//go:generate go run fixtures_gen.go

import (
	"embed"
	_ "embed"
)

// ContractSchemaJSON is erasure-contract.schema.json (JSON Schema 2020-12).
//
//go:embed erasure-contract.schema.json
var ContractSchemaJSON []byte

// ContractSchemaURL is the $id of ContractSchemaJSON.
const ContractSchemaURL = "https://linn.cloud/schemas/erasure-contract.schema.json"

// ChannelConstantsJSON is erasure-channel-constants.json.
//
//go:embed erasure-channel-constants.json
var ChannelConstantsJSON []byte

// CapabilityFixturesJSON is erasure-capability-fixtures.json.
//
//go:embed erasure-capability-fixtures.json
var CapabilityFixturesJSON []byte

// Fixtures holds fixtures/manifest.json and the raw-byte message files it names.
//
//go:embed fixtures
var Fixtures embed.FS
