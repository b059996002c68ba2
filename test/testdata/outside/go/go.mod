module example.com/orders-store

go 1.26

require (
	github.com/aws/aws-cdk-go/awscdk/v2 v2.276.0
	github.com/aws/constructs-go/constructs/v10 v10.8.1
	github.com/aws/jsii-runtime-go v1.142.0
	github.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs v0.4.0
)

// The release's Go module, unpacked beside the app; or your organisation's Go module proxy.
replace github.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs => ./release/erasurechannelconstructs
