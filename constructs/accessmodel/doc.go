// Package accessmodel decides the erasure channel's access matrix: every
// class of principal against every action on every resource of the
// channel's path, over the synthesized identity, queue, topic, bucket and
// key policies (iameval evaluates each request).
//
// Its interface to the check is narrow: a Channel (the targets with their
// policies, the app's roles, what the channel declares) and a Context (the
// request context AWS sends: region, organisation, control policies). It
// reads no template; erasurecheck reads them and builds both.
//
// The access matrix is complete by construction: its principals are not a
// list of cases but the equivalence classes the policies themselves draw.
//
//   - Every principal the app builds (each IAM role, with its real identity
//     policies) and every principal the channel declares (publishers, readers).
//   - For every account involved (the stacks', the roster's, every account a
//     policy names) and for one account no policy names: a principal that
//     matches none of the named principals or patterns, whose own account
//     lets it do anything ("*" on "*"), so that only resource policies can
//     keep it out. It stands for every unnamed principal of its account.
//   - For every ARN pattern a policy names (aws:PrincipalArn, Principal): a
//     principal in that pattern's region that is named by no exact ARN (for
//     example role/cdk-*-cfn-exec-role-… minus every known role), also allowed
//     everything by its own account. The administrators are such a region.
//   - The erasure topic's SNS, SNS for another topic of every account, and
//     every service principal a policy names, acting for a source in every
//     account.
//
// An app role that a resource's policy does not name and whose identity does
// not reach the resource is decided by the witness of its account with the
// same standing towards that policy's patterns (it cannot do more: the
// witness's identity allows everything); where no witness has that standing,
// the role itself is evaluated. So every principal of every account is
// decided, without deciding every role against every resource.
//
// Every action of the channel's services that reaches a resource kind
// (channelpolicy.Catalogue) is asked, and sns:Subscribe once per endpoint
// class (each roster queue, a queue of every account, every other protocol).
// A cell is needed (Allowed) only where the channel's path needs it; every
// other cell must be Denied, and a cell the evaluator cannot decide fails.
package accessmodel
