// Package design holds the typed design the erasure constructs hand their one
// applier (applier/apply.js): keys, queue pairs, roles, functions and
// subscriptions, policy documents with their locks, alarms and cdk-nag
// suppressions, as data, with the builders that fill them (LockBuilder, the
// alarm and suppression shapes) and the answer the applier reads back
// (Reads, Answer). It decides nothing: plan decides a subscriber's design,
// and the once-per-app constructs build theirs entry by entry.
package design
