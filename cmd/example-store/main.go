// Command example-store is the example stores' Lambda handler, built for
// provided.al2023 (GOOS=linux GOARCH=arm64 CGO_ENABLED=0 -tags lambda.norpc)
// and deployed as the asset of the example store stacks. It picks the example
// store by its subscriber name, from the environment the ErasureSubscriber
// construct set; the bitmap store also reads its bucket from the environment
// BitmapStoreBucket.AttachTo set.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
)

func main() {
	impls, err := implementations(os.Getenv(contract.EnvSubscriber))
	if err != nil {
		fmt.Fprintln(os.Stderr, "example-store: "+err.Error())
		os.Exit(1)
	}
	storehandler.Start(impls)
}

func implementations(name string) (map[contract.Pair]storehandler.Func, error) {
	if name == examplestore.BitmapsName {
		opts, err := examplestore.BitmapOptionsFromEnv(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		cfg, err := config.LoadDefaultConfig(context.Background())
		if err != nil {
			return nil, fmt.Errorf("AWS configuration: %w", err)
		}
		b, err := examplestore.NewBitmaps(s3.NewFromConfig(cfg), opts)
		if err != nil {
			return nil, err
		}
		return b.Implementations(), nil
	}
	if store := examplestore.ByName(name); store != nil {
		return store.Implementations(), nil
	}
	return nil, fmt.Errorf("%s names no example store", contract.EnvSubscriber)
}
