// Package erasurecheck checks what a CDK app will deploy for every SQS queue
// subscribed to the erasure topic, however the store was built (with
// erasure.ErasureSubscriber, by hand, with another construct library): it
// reads the synthesized templates, finds every subscription to the erasure
// topic, and refuses the wiring that breaks the channel's caps or that would
// deploy cleanly and then fail or silently lose requests. Add it to an app in
// one line:
//
//	awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{}))
//
// It reads templates, not constructs, so what it judges is exactly what
// CloudFormation will deploy: L1 resources, escape hatches, property
// overrides and nested stacks included.
package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelmeta"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// The metadata keys the channel's constructs write and the check reads,
// declared in channelmeta (below both).
const (
	TopicMetadataKey          = channelmeta.TopicMetadataKey
	RosterMetadataKey         = channelmeta.RosterMetadataKey
	RosterSizeMetadataKey     = channelmeta.RosterSizeMetadataKey
	OrganizationMetadataKey   = channelmeta.OrganizationMetadataKey
	RosterAccountsMetadataKey = channelmeta.RosterAccountsMetadataKey
)

// StoreSpec is one store's name and timing settings as deployed.
type StoreSpec struct {
	Name     string
	Settings timing.SubscriberSettings
}

// ReadStores reads every store of a cloud assembly directory: every queue
// subscribed to the erasure topic, with its timing settings as deployed.
func ReadStores(dir string) ([]Store, error) {
	paths, err := cfnmodel.TemplatePaths(dir)
	if err != nil {
		return nil, err
	}
	r, err := Check(paths, Config{})
	if err != nil {
		return nil, err
	}
	return r.Stores, nil
}

func constantsOr(c *contract.Constants) contract.Constants {
	if c != nil {
		return *c
	}
	return contract.Channel()
}

// CheckPaths checks what a store team hands the CLI: cloud assembly
// directories (any CDK language's cdk.out, nested assemblies and nested
// stacks included) and plain CloudFormation templates in JSON or YAML
// (short-form intrinsics such as !Ref, !GetAtt and !Sub included).
func CheckPaths(paths []string, cfg Config) (*Result, error) {
	files, err := cfnmodel.TemplateFiles(paths)
	if err != nil {
		return nil, err
	}
	return Check(files, cfg)
}
