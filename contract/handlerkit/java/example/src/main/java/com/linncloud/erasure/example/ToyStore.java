package com.linncloud.erasure.example;

import com.linncloud.erasure.handlerkit.KeyKind;
import com.linncloud.erasure.handlerkit.MessageType;
import com.linncloud.erasure.handlerkit.Pair;
import com.linncloud.erasure.handlerkit.Request;
import com.linncloud.erasure.handlerkit.StoreFunction;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A toy in-memory store: account ids, each with the addresses it holds rows under. It implements all seven
 * pairs; a real store would do the same work against its database, within the deadline the kit gives.
 */
public final class ToyStore {
    private final Map<String, Set<String>> accounts = new HashMap<>();

    /** A store seeded with a few accounts, including the capability fixtures' keys. */
    public static ToyStore seeded() {
        ToyStore s = new ToyStore();
        s.add("acct-0001", "capability@example.invalid", "capability-from@example.invalid");
        s.add("acct-0002", "someone@example.invalid");
        s.add("acct-0003", "shared@example.invalid", "other@example.invalid");
        return s;
    }

    /** Adds an account holding rows under {@code addresses}. */
    public synchronized void add(String accountId, String... addresses) {
        accounts.computeIfAbsent(accountId, k -> new LinkedHashSet<>()).addAll(Set.of(addresses));
    }

    /** Whether anything is held under the account id or address. */
    public synchronized boolean holds(KeyKind kind, String key) {
        if (kind == KeyKind.ACCOUNT) {
            return accounts.containsKey(key);
        }
        return accounts.values().stream().anyMatch(a -> a.contains(key));
    }

    /** ERASE: removes everything held under the key. Repeating it is harmless, so both passes answer DONE. */
    synchronized String erase(Request r) {
        if (r.keyKind() == KeyKind.ACCOUNT) {
            accounts.remove(r.key());
        } else {
            accounts.values().forEach(a -> a.remove(r.key()));
        }
        return "DONE";
    }

    /** REFILE: moves the account's rows from one address to another; NONE_OWNED when it holds none. */
    synchronized String refile(Request r) {
        Set<String> a = accounts.get(r.accountId());
        if (a == null || !a.remove(r.from())) {
            return "NONE_OWNED";
        }
        a.add(r.to());
        return "MOVED";
    }

    /** CHECK and CLASSIFY: whether the store holds data under the key. */
    synchronized String holdings(Request r) {
        return holds(r.keyKind(), r.key()) ? "HOLDS_DATA" : "HOLDS_NONE";
    }

    /** The store's function for each of the seven pairs. */
    public Map<Pair, StoreFunction> implementations() {
        Map<Pair, StoreFunction> m = new LinkedHashMap<>();
        m.put(Pair.of(MessageType.ERASE, KeyKind.ACCOUNT), (req, pass, deadline) -> erase(req));
        m.put(Pair.of(MessageType.ERASE, KeyKind.ADDRESS), (req, pass, deadline) -> erase(req));
        m.put(Pair.of(MessageType.REFILE, KeyKind.ADDRESS), (req, pass, deadline) -> refile(req));
        for (MessageType t : new MessageType[] {MessageType.CLASSIFY, MessageType.CHECK}) {
            for (KeyKind k : KeyKind.values()) {
                m.put(Pair.of(t, k), (req, pass, deadline) -> holdings(req));
            }
        }
        return m;
    }
}
