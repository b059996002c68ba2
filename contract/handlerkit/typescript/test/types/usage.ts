// Compiled (never run) by `npm test`: the kit's types accept a store written
// as the README shows and refuse an outcome or a field a pair cannot have.
import {
  makeHandler, EnvError, type ErasureRequest, type RefileRequest, type StoreFunctions,
} from "@linn-cloud/erasure-handler-kit";

export const handler = makeHandler({
  "erasure/ERASE ACCOUNT": async (req, pass, signal) => {
    signal.throwIfAborted();
    const key: string = req.key;
    const kind: "ACCOUNT" = req.keyKind;
    const p: 1 | 2 = pass;
    void [key, kind, p];
    return "DONE";
  },
  "erasure/REFILE ADDRESS": async (req: RefileRequest) => (req.from === req.to ? "NONE_OWNED" : "MOVED"),
  "erasure/CLASSIFY ACCOUNT": async () => "CANNOT_ANSWER",
  "erasure/CHECK ADDRESS": async (req) => (req.key.includes("@") ? "HOLDS_DATA" : "NOT_APPLICABLE"),
});

export const wrong: StoreFunctions = {
  // @ts-expect-error: ERASE answers DONE or NOT_APPLICABLE, never MOVED.
  "erasure/ERASE ADDRESS": async () => "MOVED",
  // @ts-expect-error: a CHECK request has no sendNo.
  "erasure/CHECK ACCOUNT": async (req) => (req.sendNo ? "HOLDS_DATA" : "HOLDS_NONE"),
};

export const notAsync: StoreFunctions = {
  // @ts-expect-error: a store function is async (returns a Promise).
  "erasure/CLASSIFY ADDRESS": () => "HOLDS_NONE",
};

export const notAPair: StoreFunctions = {
  // @ts-expect-error: REFILE is by ADDRESS only.
  "erasure/REFILE ACCOUNT": async () => "MOVED",
};

/** The request union narrows on type. */
export function describe(r: ErasureRequest): string {
  switch (r.type) {
    case "erasure/REFILE":
      return r.accountId;
    case "erasure/ERASE":
      return String(r.sendNo);
    default:
      return r.key;
  }
}

export function names(e: unknown): string[] {
  return e instanceof EnvError ? e.problems.map((p) => p.variable) : [];
}
