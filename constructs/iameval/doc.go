// Package iameval decides requests the way IAM does, offline, over policy
// documents read from templates: identity policies, resource policies (queue,
// topic, bucket) and KMS key policies, with Allow, Deny, NotAction,
// NotResource, NotPrincipal and condition operators, against the request
// context AWS sends (aws:SourceArn and aws:SourceAccount for a service acting
// for a source, aws:PrincipalArn for a role, kms:ViaService for a key used
// through a service).
//
// Every "may X do Y" question of the erasure channel's guardrail is asked
// here: the access matrix's cells, whether SNS acting for the erasure topic
// may deliver to a store's queue and use its key, whether a handler's role
// may answer on the response queue, who else may read a store's queue. No
// other package reads a policy's meaning.
//
// Values in a policy may be CloudFormation intrinsics: each statement keeps
// the Scope it was read in, which renders a value as a comparable string (a
// literal ARN, a reference to a resource, or a pattern over an unknown
// account or region).
package iameval
