// Command example-store is the example stores' Lambda handler, built for
// provided.al2023 (GOOS=linux GOARCH=arm64 CGO_ENABLED=0 -tags lambda.norpc)
// and deployed as the asset of the example store stacks. It picks the example
// store by its subscriber name, from the environment the ErasureSubscriber
// construct set.
package main

import (
	"fmt"
	"os"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
)

func main() {
	store := examplestore.ByName(os.Getenv(contract.EnvSubscriber))
	if store == nil {
		fmt.Fprintln(os.Stderr, "example-store: "+contract.EnvSubscriber+" names no example store")
		os.Exit(1)
	}
	storehandler.Start(store.Implementations())
}
