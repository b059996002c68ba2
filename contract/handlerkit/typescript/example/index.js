// A toy store's erasure handler: an in-memory store of accounts and
// addresses, implementing all seven (type, keyKind) pairs with the handler
// kit. The kit does everything else (validation, the pass-two marker, expiry,
// timeouts, both passes, answers and metrics). Deploy it with build.sh; the
// Lambda handler string is "index.handler".
"use strict";
const { makeHandler } = require("@linn-cloud/erasure-handler-kit");

// The store: the accounts it holds, and who owns each address-keyed row.
// Lambda keeps it for the life of one execution environment only: a toy.
const accounts = new Set(["acct-0001", "acct-0002"]);
const addressOwner = new Map([
  ["capability@example.invalid", "acct-0001"],
  ["capability-from@example.invalid", "acct-0001"],
  ["someone@example.invalid", "acct-0002"],
]);

/** Erase an account and every address row it owns. Running it twice changes nothing more. */
function eraseAccount(req, pass, signal) {
  signal.throwIfAborted(); // a real store passes signal to its database calls
  accounts.delete(req.key);
  for (const [address, owner] of addressOwner) if (owner === req.key) addressOwner.delete(address);
  return "DONE";
}

/** Erase one address row. */
function eraseAddress(req, pass, signal) {
  signal.throwIfAborted();
  addressOwner.delete(req.key);
  return "DONE";
}

/** Move accountId's row from req.from to req.to: MOVED, NONE_OWNED, or NOT_MOVED when `to` is someone else's. */
function refileAddress(req, pass, signal) {
  signal.throwIfAborted();
  if (addressOwner.get(req.from) !== req.accountId) return "NONE_OWNED";
  const toOwner = addressOwner.get(req.to);
  if (toOwner !== undefined && toOwner !== req.accountId) return "NOT_MOVED";
  addressOwner.delete(req.from);
  addressOwner.set(req.to, req.accountId);
  return "MOVED";
}

/** CLASSIFY and CHECK: does the store hold anything under the key? */
const holdsAccount = async (req) => (accounts.has(req.key) ? "HOLDS_DATA" : "HOLDS_NONE");
const holdsAddress = async (req) => (addressOwner.has(req.key) ? "HOLDS_DATA" : "HOLDS_NONE");

// makeHandler runs now, in Lambda's init phase: a wrong environment fails the
// init with an EnvError naming the variable (never its value).
exports.handler = makeHandler({
  "erasure/ERASE ACCOUNT": eraseAccount,
  "erasure/ERASE ADDRESS": eraseAddress,
  "erasure/REFILE ADDRESS": refileAddress,
  "erasure/CLASSIFY ACCOUNT": holdsAccount,
  "erasure/CLASSIFY ADDRESS": holdsAddress,
  "erasure/CHECK ACCOUNT": holdsAccount,
  "erasure/CHECK ADDRESS": holdsAddress,
});
