// tools/ holds the pinned Node toolchain (package.json, package-lock.json) and
// its node_modules. This go.mod only fences it off from the main module, so
// that `go build ./...` never walks into node_modules' .go templates.
module github.com/linn-cloud/erasure-channel/tools

go 1.26
