package stacks

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/contract"
)

// LedgerHandlerPackage is the Go package of the ledger's Lambda handler.
const LedgerHandlerPackage = "github.com/linn-cloud/erasure-channel/cmd/erasure-ledger"

// LedgerStack is the account service's ledger, in a stack of its own beside
// the channel: it refers to the channel and to every store's handler role.
type LedgerStack struct {
	awscdk.Stack
	Ledger *erasure.ErasureLedger
}

// NewLedgerStack builds the ledger stack of the example app.
func NewLedgerStack(scope constructs.Construct, id string, cfg AppConfig, app *App, env *awscdk.Environment) *LedgerStack {
	stack := awscdk.NewStack(scope, jsii.String(id), &awscdk.StackProps{Env: env,
		Description: jsii.String("Erasure channel: the account service's ledger (requests, answers, receipts)")})
	asset, err := BuildHandler(LedgerHandlerPackage)
	if err != nil {
		panic(err)
	}
	ids := map[string]*string{}
	for name, id := range cfg.LedgerRoleIDs {
		ids[name] = jsii.String(id)
	}
	lingering := map[string]int{}
	for _, s := range app.Stores {
		if s.Imported { // another account: the reader looks its role id up (or erasure:ledgerRoleIds pins it)
			continue
		}
		if s.Subscriber.HandlerRoleID != nil {
			ids[s.Subscriber.Name] = s.Subscriber.HandlerRoleID
		}
	}
	for _, s := range app.Stores {
		if s.Bitmap {
			lingering[s.Subscriber.Name] = contract.Channel().NoncurrentVersionExpiryCapDays
		}
	}
	l := erasure.NewErasureLedger(stack, jsii.String("ErasureLedger"), &erasure.ErasureLedgerProps{
		Channel: app.Channel.Channel, Code: awslambda.Code_FromAsset(jsii.String(asset), nil), RoleIDs: ids, LingeringDays: lingering,
	})
	return &LedgerStack{Stack: stack, Ledger: l}
}
