package stacks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/contract"
)

// AppConfig is the CDK app's configuration, read from cdk.json context.
type AppConfig struct {
	Region         string // erasure:region
	ChannelAccount string // erasure:channelAccount
	StoreAccount   string // erasure:storeAccount, the cross-account example store's account
	ResponseKeyArn string // erasure:responseKeyArn, the channel stack's ErasureResponseKeyArn output
	AccountService string // erasure:accountServiceRole, the account service's role: it alone publishes and reads answers
	ExtraStores    int    // erasure:extraStores, more stores (for scale runs)
	// ExtraAccounts is erasure:extraAccounts: the extra stores spread over
	// this many store accounts of their own, none in the channel's (0: all in
	// the channel's account).
	ExtraAccounts int
	// RealisticNames is erasure:realisticNames: the extra stores named as an
	// organisation names them (14 to 17 characters, varied), not store-001.
	RealisticNames bool
	// HandlerTimeout is erasure:handlerTimeoutSeconds, the example stores'
	// handler timeout (0: the construct's default, T); their visibility
	// timeout and retries are derived from it.
	HandlerTimeout int
	Examples       bool // erasure:examples, the two example stores (default true)
	Nag            bool // erasure:nag, the cdk-nag AwsSolutions, Serverless, NIST 800-53 rev 5, HIPAA Security and PCI DSS 3.2.1 checks (default true)
	Check          bool // erasure:check, the app-wide check over the templates (default true)
	// Ledger is erasure:ledger, the account service's ErasureLedger stack
	// beside the channel (default true, with the examples).
	Ledger bool
	// LedgerRoleIDs is erasure:ledgerRoleIds, "store=AROA…,…": the handler
	// role ids of roster stores in other accounts, for the ledger's reader
	// (a store in the app is found by itself).
	LedgerRoleIDs map[string]string
	HandlerAsset  string // the example handler's asset directory
	// OrganizationID is erasure:organizationId: the channel admits the
	// handler path of every account of this AWS organisation
	// (ErasureChannelProps.OrganizationID) instead of the roster's accounts.
	OrganizationID string
	// StoresElsewhere is erasure:storesElsewhere: the extra stores are on the
	// roster but deployed by their teams' own apps, as a channel team of a
	// large organisation runs it (its app: the channel, the ledger, the
	// dashboard).
	StoresElsewhere bool
}

// Physical names of the channel's topic and response queue, so that the
// cross-account store can build their ARNs from account and region.
const (
	TopicName         = "erasure-topic"
	ResponseQueueName = "erasure-responses"
)

// DefaultAppConfig is the embedded default: placeholder accounts, so that
// synth needs no AWS credentials.
func DefaultAppConfig() AppConfig {
	return AppConfig{
		Region:         "eu-west-1",
		ChannelAccount: "111111111111",
		StoreAccount:   "222222222222",
		ResponseKeyArn: "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000",
		AccountService: "arn:aws:iam::111111111111:role/account-service",
		Examples:       true,
		Nag:            true,
		Check:          true,
		Ledger:         true,
	}
}

// ConfigFromContext reads the app's context over the defaults.
func ConfigFromContext(app awscdk.App) (AppConfig, error) {
	cfg := DefaultAppConfig()
	// All of the context in one round trip to the jsii kernel.
	all, _ := app.Node().GetAllContext(nil).(map[string]any)
	context := func(key string) any { return all[key] }
	str := func(key string, dst *string) {
		if v := context(key); v != nil {
			*dst = fmt.Sprint(v)
		}
	}
	str("erasure:region", &cfg.Region)
	str("erasure:channelAccount", &cfg.ChannelAccount)
	str("erasure:storeAccount", &cfg.StoreAccount)
	str("erasure:responseKeyArn", &cfg.ResponseKeyArn)
	str("erasure:accountServiceRole", &cfg.AccountService)
	str("erasure:organizationId", &cfg.OrganizationID)
	if v := context("erasure:extraStores"); v != nil {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("stacks: context erasure:extraStores must be a whole number")
		}
		cfg.ExtraStores = n
	}
	if v := context("erasure:extraAccounts"); v != nil {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("stacks: context erasure:extraAccounts must be a whole number")
		}
		cfg.ExtraAccounts = n
	}
	if v := context("erasure:handlerTimeoutSeconds"); v != nil {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n <= 0 {
			return cfg, fmt.Errorf("stacks: context erasure:handlerTimeoutSeconds must be a whole number of seconds above 0")
		}
		cfg.HandlerTimeout = n
	}
	if v := context("erasure:ledgerRoleIds"); v != nil {
		cfg.LedgerRoleIDs = map[string]string{}
		for _, p := range strings.Split(fmt.Sprint(v), ",") {
			name, id, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || !contract.IsSubscriberName(name) || !contract.IsRoleID(id) {
				return cfg, fmt.Errorf("stacks: context erasure:ledgerRoleIds must be store=<role id> pairs, comma-separated")
			}
			cfg.LedgerRoleIDs[name] = id
		}
	}
	for key, dst := range map[string]*bool{"erasure:examples": &cfg.Examples, erasure.NagContextKey: &cfg.Nag, "erasure:check": &cfg.Check, "erasure:ledger": &cfg.Ledger, "erasure:realisticNames": &cfg.RealisticNames, "erasure:storesElsewhere": &cfg.StoresElsewhere} {
		if v := context(key); v != nil {
			b, err := strconv.ParseBool(fmt.Sprint(v))
			if err != nil {
				return cfg, fmt.Errorf("stacks: context %s must be true or false", key)
			}
			*dst = b
		}
	}
	return cfg, nil
}

// App is the synthesized app's stacks.
type App struct {
	Channel *ChannelStack
	Stores  []*StoreStack
	Ledger  *LedgerStack
}

// BuildApp adds the channel stack and the example stores to app, and the
// cdk-nag AwsSolutions checks over all of it.
func BuildApp(app awscdk.App, cfg AppConfig) *App {
	channelEnv := &awscdk.Environment{Account: jsii.String(cfg.ChannelAccount), Region: jsii.String(cfg.Region)}
	storeEnv := &awscdk.Environment{Account: jsii.String(cfg.StoreAccount), Region: jsii.String(cfg.Region)}
	out := &App{}
	publishers, readers := []string{cfg.AccountService}, []string{cfg.AccountService}
	ledger := cfg.Examples && cfg.Ledger
	if ledger {
		reader, sweeper := erasure.LedgerPrincipals("aws", cfg.ChannelAccount)
		publishers, readers = append(publishers, sweeper), append(readers, reader)
	}
	out.Channel = NewChannelStack(app, "ErasureChannel", &ChannelStackProps{
		StackProps:        awscdk.StackProps{Env: channelEnv, Description: jsii.String("Erasure channel: topic, response queue, keys and alarms")},
		Stores:            roster(cfg),
		Publishers:        publishers,
		ResponseReaders:   readers,
		TopicName:         TopicName,
		ResponseQueueName: ResponseQueueName,
		OrganizationID:    cfg.OrganizationID,
	})
	if cfg.Examples {
		out.Stores = append(out.Stores, exampleStores(app, cfg, out.Channel, channelEnv, storeEnv)...)
	}
	extra := extraStores(cfg)
	if cfg.StoresElsewhere { // on the roster, deployed by their own apps
		extra = nil
	}
	for i, st := range extra {
		props := &StoreStackProps{StackProps: awscdk.StackProps{Env: channelEnv}, Name: st.Name, Channel: out.Channel.Channel, HandlerAsset: cfg.HandlerAsset}
		if st.Account != "" {
			props.StackProps.Env = &awscdk.Environment{Account: jsii.String(st.Account), Region: jsii.String(cfg.Region)}
			props.Channel, props.Imported = nil, importedChannel(cfg)
		}
		out.Stores = append(out.Stores, NewStoreStack(app, fmt.Sprintf("Store%03d", i+1), props))
	}
	if cfg.Examples {
		// The operator's view, in a stack of its own: it refers to the
		// channel, and finds every store by search.
		ops := awscdk.NewStack(app, jsii.String("ErasureOperations"), &awscdk.StackProps{Env: channelEnv,
			Description: jsii.String("Erasure channel: the operator's dashboard")})
		erasure.NewErasureDashboard(ops, jsii.String("ErasureDashboard"), &erasure.ErasureDashboardProps{
			Channel: out.Channel.Channel, DashboardName: "erasure-channel"})
	}
	if ledger {
		out.Ledger = NewLedgerStack(app, "ErasureLedger", cfg, out, channelEnv)
	}
	if cfg.Nag {
		for _, pack := range []awscdk.IAspect{
			cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}),
			cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}),
			cdknag.NewNIST80053R5Checks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}),
			cdknag.NewHIPAASecurityChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}),
			cdknag.NewPCIDSS321Checks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}),
		} {
			awscdk.Aspects_Of(app).Add(pack, nil)
		}
	}
	return out
}

// roster is every store the app deploys, by name and account: the only
// principals the response queue accepts answers from.
func roster(cfg AppConfig) []erasure.RosterStore {
	var out []erasure.RosterStore
	if cfg.Examples {
		out = append(out, erasure.RosterStore{Name: "space"}, erasure.RosterStore{Name: "ledger", Account: cfg.StoreAccount},
			erasure.RosterStore{Name: "bitmaps"})
	}
	out = append(out, extraStores(cfg)...)
	return out
}

// exampleStores are the example stores: one beside the channel, one in
// another account importing it by ARN, and a bitmap store with its bucket.
func exampleStores(app awscdk.App, cfg AppConfig, ch *ChannelStack, channelEnv, storeEnv *awscdk.Environment) []*StoreStack {
	var out []*StoreStack
	var timing erasure.ErasureSubscriberProps
	if cfg.HandlerTimeout > 0 {
		timing.HandlerTimeout = awscdk.Duration_Seconds(jsii.Number(cfg.HandlerTimeout))
	}
	// A store beside the channel: same app, same account, cross-stack references.
	out = append(out, NewStoreStack(app, "SpaceStore", &StoreStackProps{
		StackProps:   awscdk.StackProps{Env: channelEnv, Description: jsii.String("Example store 'space', in the channel's account")},
		Name:         "space",
		Channel:      ch.Channel,
		HandlerAsset: cfg.HandlerAsset,
		Subscriber:   timing,
	}))
	// A store in another account: the channel imported by ARN.
	out = append(out, NewStoreStack(app, "LedgerStore", &StoreStackProps{
		StackProps:   awscdk.StackProps{Env: storeEnv, Description: jsii.String("Example store 'ledger', in another account")},
		Name:         "ledger",
		Imported:     importedChannel(cfg),
		HandlerAsset: cfg.HandlerAsset,
		Subscriber:   timing,
	}))
	// A bitmap store beside the channel: its bucket attached to its subscriber.
	bitmaps := NewStoreStack(app, "BitmapStore", &StoreStackProps{
		StackProps:   awscdk.StackProps{Env: channelEnv, Description: jsii.String("Example store 'bitmaps': roaring-bitmap segments on S3")},
		Name:         "bitmaps",
		Channel:      ch.Channel,
		HandlerAsset: cfg.HandlerAsset,
		Subscriber:   timing,
	})
	erasure.NewBitmapStoreBucket(bitmaps.Stack, jsii.String("BitmapStoreBucket"), nil).AttachTo(bitmaps.Subscriber)
	bitmaps.Bitmap = true
	out = append(out, bitmaps)
	return out
}

// importedChannel is what a store in another account imports of the channel.
func importedChannel(cfg AppConfig) *ImportedChannel {
	return &ImportedChannel{
		TopicArn:         fmt.Sprintf("arn:aws:sns:%s:%s:%s", cfg.Region, cfg.ChannelAccount, TopicName),
		ResponseQueueArn: fmt.Sprintf("arn:aws:sqs:%s:%s:%s", cfg.Region, cfg.ChannelAccount, ResponseQueueName),
		ResponseKeyArn:   cfg.ResponseKeyArn,
	}
}

// extraStores are the scale runs' stores (erasure:extraStores): store-001…
// in the channel's account, or with erasure:realisticNames names of 14 to 17
// characters, and with erasure:extraAccounts spread over that many store
// accounts of their own (ExtraStoreAccount).
func extraStores(cfg AppConfig) []erasure.RosterStore {
	out := make([]erasure.RosterStore, 0, cfg.ExtraStores)
	for i := 1; i <= cfg.ExtraStores; i++ {
		st := erasure.RosterStore{Name: fmt.Sprintf("store-%03d", i)}
		if cfg.RealisticNames {
			st.Name = RealisticStoreName(i)
		}
		if cfg.ExtraAccounts > 0 {
			st.Account = ExtraStoreAccount((i - 1) % cfg.ExtraAccounts)
		}
		out = append(out, st)
	}
	return out
}

// ExtraStoreAccount is the k-th store account of a scale run (from 0).
func ExtraStoreAccount(k int) string { return fmt.Sprintf("%012d", 300000000000+k) }

// storeNameWords are the domains an organisation's stores are named after.
var storeNameWords = []string{"orders", "billing", "invoices", "profiles", "sessions", "reviews", "payments", "shipments",
	"loyalty", "messages", "carts", "returns", "search", "ledger", "consents", "devices", "audit", "wishlist"}

// RealisticStoreName is the i-th scale-run store's name: a domain word and a
// number, 14 to 17 characters long, each length as often as the others.
func RealisticStoreName(i int) string {
	word := storeNameWords[i%len(storeNameWords)]
	length := 14 + i%4
	return fmt.Sprintf("%s-%0*d", word, length-len(word)-1, i)
}
