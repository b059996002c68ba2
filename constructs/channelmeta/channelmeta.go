// Package channelmeta names the metadata the channel's constructs write on
// their resources (ErasureChannel's topic and response queue) and the
// app-wide check reads back from the templates and the cloud assembly: one
// declaration, in a leaf package, so the constructs need not import their
// own checker to write what it reads.
package channelmeta

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
