// constructs/typescript holds an npm package and its node_modules. This
// go.mod only fences it off from the main module, so that `go build ./...`
// never walks into node_modules.
module github.com/linn-cloud/erasure-channel/constructs/typescript

go 1.26
