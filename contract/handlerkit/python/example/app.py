"""A toy store's erasure handler: the Python quickstart's example.

An in-memory store of orders, each held under an account id and an address,
seeded with a few accounts (acct-0001 holds data under
capability@example.invalid and capability-from@example.invalid, the
addresses of schema/erasure-capability-fixtures.json). It implements all
seven pairs; the kit does the rest. Deploy: example/build.sh DEST, handler
"app.handler". The data lives in the process, so it is reseeded on every
cold start: it is a demonstration, not a store.
"""
import threading

from erasure_channel_handler import make_handler

DONE, MOVED, NONE_OWNED, NOT_MOVED = "DONE", "MOVED", "NONE_OWNED", "NOT_MOVED"
HOLDS_DATA, HOLDS_NONE = "HOLDS_DATA", "HOLDS_NONE"


class ToyStore:
    """Orders as rows {account, address, item}; a lock, because the kit runs
    each call on a worker thread and an abandoned call may still be running."""

    def __init__(self, rows):
        self.rows = [dict(r) for r in rows]
        self.lock = threading.Lock()
        # Addresses that may not receive rows (a legal hold, say): a REFILE to one is NOT_MOVED.
        self.held_addresses = {"held@example.invalid"}

    def holds(self, field, key):
        with self.lock:
            return any(r[field] == key for r in self.rows)

    def erase(self, field, key):
        with self.lock:
            self.rows = [r for r in self.rows if r[field] != key]

    def refile(self, account, src, dst):
        """Move account's rows from src to dst: MOVED, NONE_OWNED or NOT_MOVED."""
        with self.lock:
            owned = [r for r in self.rows if r["account"] == account and r["address"] == src]
            if not owned:
                return NONE_OWNED
            if dst in self.held_addresses:
                return NOT_MOVED
            for r in owned:
                r["address"] = dst
            return MOVED


SEED = [
    {"account": "acct-0001", "address": "capability@example.invalid", "item": "order-1"},
    {"account": "acct-0001", "address": "capability-from@example.invalid", "item": "order-2"},
    {"account": "acct-0002", "address": "second@example.invalid", "item": "order-3"},
    {"account": "acct-0003", "address": "third@example.invalid", "item": "order-4"},
]
STORE = ToyStore(SEED)


def erase_account(request, pass_no, deadline):
    STORE.erase("account", request.key)
    return DONE


def erase_address(request, pass_no, deadline):
    STORE.erase("address", request.key)
    return DONE


def refile_address(request, pass_no, deadline):
    return STORE.refile(request.account_id, request.from_, request.to)


def holdings(field):
    def answer(request, pass_no, deadline):
        return HOLDS_DATA if STORE.holds(field, request.key) else HOLDS_NONE
    return answer


handler = make_handler({
    ("erasure/ERASE", "ACCOUNT"): erase_account,
    ("erasure/ERASE", "ADDRESS"): erase_address,
    ("erasure/REFILE", "ADDRESS"): refile_address,
    ("erasure/CLASSIFY", "ACCOUNT"): holdings("account"),
    ("erasure/CLASSIFY", "ADDRESS"): holdings("address"),
    ("erasure/CHECK", "ACCOUNT"): holdings("account"),
    ("erasure/CHECK", "ADDRESS"): holdings("address"),
})
