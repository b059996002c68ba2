// Package plan is an ErasureSubscriber's decisions as a pure function: its
// props and the app's facts in (SubscriberInput), the next typed design
// (design.Design) out (SubscriberStep), step by step until Final. Every
// derivation, cap and refusal of a subscriber is decided here, once, with no
// jsii and no CDK: the Go construct calls it natively, and plan/wasm builds
// it as WebAssembly for the TypeScript construct and every jsii language.
package plan
