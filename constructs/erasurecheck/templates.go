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
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// TopicMetadataKey marks the erasure topic in a template (ErasureChannel
// sets it), so subscriptions to it are found by reference, import or ARN.
const TopicMetadataKey = "erasure:topic"

// RosterMetadataKey marks the response queue with the roster's store names
// (ErasureChannel sets it).
const RosterMetadataKey = "erasure:roster"

// RosterSizeMetadataKey marks the response queue with the number of roster
// stores: the names themselves (RosterMetadataKey) live in the cloud
// assembly's metadata of the queue, never in the template, which they would
// grow per store.
const RosterSizeMetadataKey = "erasure:rosterSize"

// OrganizationMetadataKey marks the response queue with the AWS organisation
// whose accounts the channel's shared policies admit (aws:PrincipalOrgID),
// in place of the roster's accounts (RosterAccountsMetadataKey).
const OrganizationMetadataKey = "erasure:organization"

// RosterAccountsMetadataKey marks the response queue with the roster's
// accounts: the accounts whose handler path (contract.HandlerRolePath) the
// channel's shared policies admit.
const RosterAccountsMetadataKey = "erasure:rosterAccounts"

// StoreSpec is one store's name and timing settings as deployed.
type StoreSpec struct {
	Name     string
	Settings timing.Store
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
