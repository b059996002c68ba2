/**
 * makeHandler: the Lambda SQS handler a store's erasure function exports. The
 * store writes only its functions; the kit does every step of
 * docs/quickstart/handler.md, as the Go adapter (contract/storehandler) does:
 * validate, check the pass-two marker, consume expired requests, dispatch,
 * bound each store call, run ERASE and REFILE twice, validate and send the
 * answer, count it, and report only the failed records.
 */
import { answerFor, encodeResponse, isExpired, parseRequest, type Answer } from "./contract";
import { EnvError, FUNCTION_NAME_VARIABLE, handlerSenderId, loadHandlerEnvironment, validSender, type EnvProblem, type HandlerEnvironment } from "./env";
import { errorClass, logLine, metricLine, METRIC_ANSWERS, METRIC_NOT_APPLICABLE, type Level, type LineWriter, type LogFields } from "./observe";
import { KitConfigError, sqsSender, type SendMessageFn, type SqsClientLike } from "./sqs";
import { isDestructive, PAIRS, type ErasureRequest, type Pass, type RequestType, type StoreFunctions } from "./types";

/** The SQS message attributes that mark pass two on the store's own queue; never part of the body. */
export const ATTR_PASS = "erasure-pass";
export const ATTR_PASS_ONE_OUTCOME = "erasure-pass-one-outcome";

/** The most time kept before the Lambda deadline to send an answer (at most a tenth of the time left). */
export const DEADLINE_RESERVE_MS = 2000;

/** One record of an SQS event, as Lambda delivers it (only what the kit reads). */
export interface SqsRecord {
  messageId: string;
  body: string;
  attributes?: { SenderId?: string; [name: string]: string | undefined };
  messageAttributes?: Record<string, { stringValue?: string | null; dataType?: string } | undefined>;
}

/** An SQS event. */
export interface SqsEvent {
  Records?: SqsRecord[];
}

/** What the kit reads of Lambda's context: the time left. */
export interface LambdaContext {
  getRemainingTimeInMillis?(): number;
}

/** The handler's answer to Lambda: the records SQS must retry. */
export interface BatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/** The Lambda entry point makeHandler returns. It never throws for a record. */
export type ErasureHandler = (event: SqsEvent, context?: LambdaContext) => Promise<BatchResponse>;

/** Options, for tests and unusual setups; a Lambda needs none. */
export interface HandlerOptions {
  /** The environment to read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Sends one SQS message; default the AWS SDK's SQSClient (or sqsClient). */
  sendMessage?: SendMessageFn;
  /** An SQSClient of @aws-sdk/client-sqs to send with, instead of a default one. */
  sqsClient?: SqsClientLike;
  /** The store's clock in epoch milliseconds; default Date.now. */
  now?: () => number;
  /** Receives each log line; default stderr. */
  log?: LineWriter;
  /** Receives each embedded-metric line; default stdout. */
  metrics?: LineWriter;
}

type AnyStoreFunction = (req: ErasureRequest, pass: Pass, signal: AbortSignal) => unknown;

const TIMEOUT = Symbol("timeout");

/**
 * makeHandler checks the store's functions and reads the environment now
 * (call it at module load: Lambda's init phase). A wrong environment throws an
 * EnvError naming each variable and its problem, never a value; a wrong
 * functions map throws a KitConfigError naming the pair.
 */
export function makeHandler(functions: StoreFunctions, options: HandlerOptions = {}): ErasureHandler {
  const fns = checkFunctions(functions);
  const rawEnv = options.env ?? process.env;
  const problems: EnvProblem[] = [];
  let env: HandlerEnvironment | undefined;
  try {
    env = loadHandlerEnvironment(rawEnv);
  } catch (e) {
    if (!(e instanceof EnvError)) throw e;
    problems.push(...e.problems);
  }
  const functionName = rawEnv[FUNCTION_NAME_VARIABLE] ?? "";
  const destructive = [...fns.keys()].some((k) => k.startsWith("erasure/ERASE ") || k.startsWith("erasure/REFILE "));
  if (destructive && (functionName === "" || functionName.includes(":"))) {
    problems.push({
      variable: FUNCTION_NAME_VARIABLE,
      problem: functionName === "" ? "missing (Lambda sets it; pass two is recognised by it)" : "not a function name",
    });
  }
  if (problems.length > 0 || !env) throw new EnvError(problems);
  const send = options.sendMessage ?? sqsSender(options.sqsClient);
  return new Kit(env, fns, send, handlerSenderId(env.roleId, functionName), options).handler;
}

function checkFunctions(functions: StoreFunctions): Map<string, AnyStoreFunction> {
  if (typeof functions !== "object" || functions === null) throw new KitConfigError("erasure handler kit: functions must be an object of \"<type> <keyKind>\" to function");
  const out = new Map<string, AnyStoreFunction>();
  const bad: string[] = [];
  for (const [key, fn] of Object.entries(functions)) {
    if (fn === undefined) continue;
    if (!(PAIRS as readonly string[]).includes(key)) bad.push(`${JSON.stringify(key)}: not a pair a store can implement (${PAIRS.join(", ")})`);
    else if (typeof fn !== "function") bad.push(`${key}: not a function`);
    else out.set(key, fn as AnyStoreFunction);
  }
  if (bad.length > 0) throw new KitConfigError("erasure handler kit: " + bad.join("; "));
  return out;
}

/** Kit holds one handler's configuration; handler is its Lambda entry point. */
class Kit {
  private readonly now: () => number;
  private readonly logWriter: LineWriter;
  private readonly metricWriter: LineWriter;

  constructor(
    private readonly env: HandlerEnvironment,
    private readonly fns: Map<string, AnyStoreFunction>,
    private readonly send: SendMessageFn,
    private readonly self: string,
    options: HandlerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.logWriter = options.log ?? ((l) => void process.stderr.write(l));
    this.metricWriter = options.metrics ?? ((l) => void process.stdout.write(l));
  }

  /** Processes every record in order and reports the failed ones. */
  readonly handler: ErasureHandler = async (event, context) => {
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const rec of event?.Records ?? []) {
      let ok: boolean;
      try {
        ok = await this.record(rec, context);
      } catch (e) {
        this.log("ERROR", "erasure record failed", { code: "INTERNAL", error: errorClass(e) });
        ok = false;
      }
      if (!ok) batchItemFailures.push({ itemIdentifier: rec?.messageId });
    }
    return { batchItemFailures };
  };

  private log(level: Level, msg: string, fields?: LogFields): void {
    this.logWriter(logLine(level, msg, fields));
  }

  /** record does the contract's steps for one record; false fails it (SQS retries it). */
  private async record(rec: SqsRecord, context: LambdaContext | undefined): Promise<boolean> {
    // 1. Validate first.
    let req: ErasureRequest;
    try {
      req = parseRequest(typeof rec.body === "string" ? rec.body : "");
    } catch (e) {
      this.log("WARN", "erasure request refused", { code: (e as { code?: string }).code ?? "INVALID_MESSAGE" });
      return false;
    }
    // 2. The pass-two marker, before expiry.
    const marker = this.passOf(rec, req.type);
    if (!marker) {
      this.log("WARN", "erasure request refused", { code: "BAD_PASS_MARKER", type: req.type });
      return false;
    }
    const { pass, passOne } = marker;
    // 3. Expiry by the store's own clock.
    if (isExpired(req, this.now())) {
      this.log("INFO", "erasure request expired: consumed without an answer", { type: req.type, pass });
      return true;
    }
    // 4. Dispatch.
    const fn = this.fns.get(`${req.type} ${req.keyKind}`);
    if (!fn) return this.notApplicable(req, context);
    const ms = callTime(this.env.batchTimeoutSeconds * 1000, remaining(context));
    if (ms === undefined) {
      this.log("WARN", "erasure request deferred", { code: "NO_TIME_LEFT", type: req.type, pass });
      return false;
    }
    const call = await runBounded(fn, req, pass, ms);
    if (!call.ok) {
      this.log("WARN", "erasure store call failed", { code: call.code, type: req.type, pass, ...(call.error ? { error: call.error } : {}) });
      return false;
    }
    let outcome = call.outcome;
    if (outcome === "NOT_APPLICABLE") return this.notApplicable(req, context);
    if (isDestructive(req.type) && pass === 1) {
      try {
        encodeResponse(answerFor(req, this.env.subscriber, outcome as string));
      } catch {
        this.log("WARN", "erasure store call returned an outcome the contract refuses", { code: "INVALID_MESSAGE", type: req.type });
        return false;
      }
      return this.enqueuePassTwo(rec, req.type, outcome as string, context);
    }
    if (pass === 2) outcome = combine(req.type, passOne, outcome);
    // 5. Answer.
    return this.answer(answerFor(req, this.env.subscriber, outcome as string), context);
  }

  /**
   * passOf reads the pass-two marker: none is pass one; a marker is pass two
   * only with value "2", on ERASE or REFILE, from exactly this handler's own
   * SenderId, with a pass-one outcome of that type. Anything else is refused
   * (undefined).
   */
  private passOf(rec: SqsRecord, t: RequestType): { pass: Pass; passOne: string } | undefined {
    const attrs = rec.messageAttributes ?? {};
    if (!Object.prototype.hasOwnProperty.call(attrs, ATTR_PASS)) return { pass: 1, passOne: "" };
    if (attrs[ATTR_PASS]?.stringValue !== "2" || !isDestructive(t)) return undefined;
    if (!validSender(this.self) || rec.attributes?.SenderId !== this.self) return undefined;
    const o = attrs[ATTR_PASS_ONE_OUTCOME]?.stringValue;
    if (typeof o !== "string" || !outcomeFor(t, o)) return undefined;
    return { pass: 2, passOne: o };
  }

  private async notApplicable(req: ErasureRequest, context: LambdaContext | undefined): Promise<boolean> {
    this.metricWriter(metricLine(this.now(), this.env.subscriber, METRIC_NOT_APPLICABLE, "MessageType", req.type));
    return this.answer(answerFor(req, this.env.subscriber, "NOT_APPLICABLE"), context);
  }

  /** answer validates and sends one answer to the response queue, with no message attribute, and counts it. */
  private async answer(a: Answer, context: LambdaContext | undefined): Promise<boolean> {
    let body: string;
    try {
      body = encodeResponse(a);
    } catch {
      this.log("ERROR", "erasure response send failed", { code: "INVALID_RESPONSE" });
      return false;
    }
    try {
      await this.send({ QueueUrl: this.env.responseQueueUrl, MessageBody: body }, sendOptions(context));
    } catch (e) {
      this.log("ERROR", "erasure response send failed", { code: "SEND_FAILED", error: errorClass(e) });
      return false;
    }
    const outcome = a.type === "erasure/HOLDINGS" ? a.answer : a.outcome;
    this.log("INFO", "erasure answer sent", { type: a.type, outcome });
    this.metricWriter(metricLine(this.now(), this.env.subscriber, METRIC_ANSWERS, "Outcome", outcome));
    return true;
  }

  /** enqueuePassTwo re-sends the same body to the store's own queue, delayed and marked as pass two. */
  private async enqueuePassTwo(rec: SqsRecord, t: RequestType, outcome: string, context: LambdaContext | undefined): Promise<boolean> {
    const delaySeconds = this.env.passTwoDelaySeconds;
    try {
      await this.send(
        {
          QueueUrl: this.env.queueUrl,
          MessageBody: rec.body,
          DelaySeconds: delaySeconds,
          MessageAttributes: {
            [ATTR_PASS]: { DataType: "Number", StringValue: "2" },
            [ATTR_PASS_ONE_OUTCOME]: { DataType: "String", StringValue: outcome },
          },
        },
        sendOptions(context),
      );
    } catch (e) {
      this.log("WARN", "erasure pass two not enqueued", { code: "PASS_TWO_ENQUEUE_FAILED", type: t, error: errorClass(e) });
      return false;
    }
    this.log("INFO", "erasure pass two enqueued", { type: t, delaySeconds });
    return true;
  }
}

/** remaining is the Lambda time left in ms, or undefined when there is no deadline. */
function remaining(context: LambdaContext | undefined): number | undefined {
  const r = typeof context?.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : undefined;
  return typeof r === "number" && Number.isFinite(r) ? r : undefined;
}

/**
 * callTime is how long a store call may take (storehandler.callDeadline): the
 * batch timeout, but never past the deadline less the reserve, the reserve
 * being min(2 s, a tenth of the time left). undefined: no time to start one.
 */
export function callTime(batchMs: number, leftMs: number | undefined): number | undefined {
  if (leftMs === undefined) return batchMs;
  const reserve = Math.min(DEADLINE_RESERVE_MS, leftMs / 10);
  if (leftMs - reserve <= 0) return undefined;
  return Math.min(batchMs, leftMs - reserve);
}

/** sendOptions ends an SQS call at the Lambda deadline. */
function sendOptions(context: LambdaContext | undefined): { abortSignal?: AbortSignal } {
  const left = remaining(context);
  return left === undefined ? {} : { abortSignal: AbortSignal.timeout(Math.max(0, Math.floor(left))) };
}

type CallResult = { ok: true; outcome: unknown } | { ok: false; code: "STORE_CALL_FAILED" | "BATCH_TIMEOUT"; error?: string };

/**
 * runBounded calls fn with a signal that aborts after ms. A call still running
 * then is a BATCH_TIMEOUT (the kit stops waiting; the store should stop on the
 * signal); a call that throws is STORE_CALL_FAILED, or BATCH_TIMEOUT when it
 * threw because its time was up.
 */
async function runBounded(fn: AnyStoreFunction, req: ErasureRequest, pass: Pass, ms: number): Promise<CallResult> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => {
      ac.abort(new DOMException("the store call's time is up", "TimeoutError"));
      resolve(TIMEOUT);
    }, ms);
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(() => fn(req, pass, ac.signal)), timeout]);
    if (outcome === TIMEOUT) return { ok: false, code: "BATCH_TIMEOUT" };
    return { ok: true, outcome };
  } catch (e) {
    return { ok: false, code: ac.signal.aborted ? "BATCH_TIMEOUT" : "STORE_CALL_FAILED", error: errorClass(e) };
  } finally {
    clearTimeout(timer);
  }
}

/** outcomeFor: the pass-one outcomes a marker may carry. */
function outcomeFor(t: RequestType, o: string): boolean {
  if (t === "erasure/ERASE") return o === "DONE";
  if (t === "erasure/REFILE") return o === "MOVED" || o === "NONE_OWNED" || o === "NOT_MOVED";
  return false;
}

/**
 * combine is the answer after both passes (storehandler.combine): for REFILE,
 * NOT_MOVED in either pass wins, then MOVED, then pass two's; ERASE answers
 * pass two's outcome.
 */
export function combine(t: RequestType, passOne: string, passTwo: unknown): unknown {
  if (t !== "erasure/REFILE") return passTwo;
  for (const o of ["NOT_MOVED", "MOVED"]) if (passOne === o || passTwo === o) return o;
  return passTwo;
}
