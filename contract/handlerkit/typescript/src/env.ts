/**
 * The handler's environment (contract/env.go): the six variables the
 * ErasureSubscriber construct sets, checked against the channel's caps with
 * the Go adapter's rules and wording. A problem names the variable and the
 * rule, never the value.
 */
import { CONSTANTS } from "./generated/contract-data";

/** The six variables, in the order Go reads and reports them. */
export const HANDLER_ENVIRONMENT_VARIABLES = [
  "ERASURE_PASS_TWO_DELAY_SECONDS",
  "ERASURE_BATCH_TIMEOUT_SECONDS",
  "ERASURE_SUBSCRIBER",
  "ERASURE_RESPONSE_QUEUE_URL",
  "ERASURE_QUEUE_URL",
  "ERASURE_HANDLER_ROLE_ID",
] as const;

/** Lambda sets it: the function's name, the session part of the handler's own SenderId. */
export const FUNCTION_NAME_VARIABLE = "AWS_LAMBDA_FUNCTION_NAME";

/** A store handler's configuration, read from its environment. */
export interface HandlerEnvironment {
  /** ERASURE_PASS_TWO_DELAY_SECONDS: the delay before pass two, in seconds. */
  readonly passTwoDelaySeconds: number;
  /** ERASURE_BATCH_TIMEOUT_SECONDS: the limit on one store call, in seconds. */
  readonly batchTimeoutSeconds: number;
  /** ERASURE_SUBSCRIBER: the subscriber of every answer. */
  readonly subscriber: string;
  /** ERASURE_RESPONSE_QUEUE_URL: where answers go. */
  readonly responseQueueUrl: string;
  /** ERASURE_QUEUE_URL: the store's own queue, where pass two is re-sent. */
  readonly queueUrl: string;
  /** ERASURE_HANDLER_ROLE_ID: the handler role's unique id (AROA…). */
  readonly roleId: string;
}

/** One variable that is missing or wrong: its name and the rule, never its value. */
export interface EnvProblem {
  readonly variable: string;
  readonly problem: string;
}

/**
 * EnvError lists every problem found in the environment. Its message is
 * "erasure handler environment: VARIABLE: problem; …" and holds no value.
 * makeHandler throws it at Lambda's init, which records an init error and
 * answers nothing.
 */
export class EnvError extends Error {
  override name = "EnvError";
  constructor(readonly problems: readonly EnvProblem[]) {
    super("erasure handler environment: " + problems.map((p) => `${p.variable}: ${p.problem}`).join("; "));
  }
  /** Whether variable has a problem. */
  has(variable: string): boolean {
    return this.problems.some((p) => p.variable === variable);
  }
}

/** The caps the environment is checked against, from schema/erasure-channel-constants.json. */
export const CAPS = {
  passTwoDelayCapSeconds: CONSTANTS.passTwoDelayCapSeconds,
  batchTimeoutCapSeconds: CONSTANTS.batchTimeoutCapSeconds,
  handlerTimeoutCapSeconds: CONSTANTS.handlerTimeoutCapSeconds,
} as const;

/**
 * handlerVariableProblem is what is wrong with one variable's present,
 * non-empty value, or "" when nothing (contract.HandlerVariableProblem).
 */
export function handlerVariableProblem(name: string, value: string): string {
  const seconds = (min: number, max: number, capName: string): string => {
    const n = plainSeconds(value);
    if (n === undefined) return "not a whole number of seconds";
    if (n < min) return `below the minimum of ${min} s`;
    if (n > max) return `above the cap of ${max} s (${capName})`;
    return "";
  };
  switch (name) {
    case "ERASURE_PASS_TWO_DELAY_SECONDS":
      return seconds(0, CAPS.passTwoDelayCapSeconds, "passTwoDelayCapSeconds");
    case "ERASURE_BATCH_TIMEOUT_SECONDS": {
      let cap: number = CAPS.batchTimeoutCapSeconds;
      let capName = "batchTimeoutCapSeconds";
      if (CAPS.handlerTimeoutCapSeconds < cap) {
        cap = CAPS.handlerTimeoutCapSeconds;
        capName = "handlerTimeoutCapSeconds";
      }
      return seconds(1, cap, capName);
    }
    case "ERASURE_SUBSCRIBER":
      return isSubscriberName(value) ? "" : "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)";
    case "ERASURE_RESPONSE_QUEUE_URL":
    case "ERASURE_QUEUE_URL":
      return value.startsWith("https://") || value.startsWith("http://") ? "" : "not an http(s) queue URL";
    case "ERASURE_HANDLER_ROLE_ID":
      return isRoleId(value) ? "" : "not an IAM role's unique id (AROA followed by upper-case letters and digits)";
  }
  return "";
}

/**
 * loadHandlerEnvironment reads and checks the six variables
 * (contract.LoadHandlerEnvironment); every problem is reported together in
 * one EnvError.
 */
export function loadHandlerEnvironment(env: Readonly<Record<string, string | undefined>>): HandlerEnvironment {
  const problems: EnvProblem[] = [];
  for (const name of HANDLER_ENVIRONMENT_VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw === "") {
      problems.push({ variable: name, problem: "missing" });
      continue;
    }
    const p = handlerVariableProblem(name, raw);
    if (p !== "") problems.push({ variable: name, problem: p });
  }
  if (problems.length > 0) throw new EnvError(problems);
  const get = (n: string) => env[n] as string;
  return Object.freeze({
    passTwoDelaySeconds: plainSeconds(get("ERASURE_PASS_TWO_DELAY_SECONDS"))!,
    batchTimeoutSeconds: plainSeconds(get("ERASURE_BATCH_TIMEOUT_SECONDS"))!,
    subscriber: get("ERASURE_SUBSCRIBER"),
    responseQueueUrl: get("ERASURE_RESPONSE_QUEUE_URL"),
    queueUrl: get("ERASURE_QUEUE_URL"),
    roleId: get("ERASURE_HANDLER_ROLE_ID"),
  });
}

/** plainSeconds parses 1 to 6 decimal digits and nothing else. */
function plainSeconds(s: string): number | undefined {
  return /^[0-9]{1,6}$/.test(s) ? Number(s) : undefined;
}

/** isSubscriberName: 1 to 64 of a-z, 0-9 and -, starting with a letter, not ending with - (contract.IsSubscriberName). */
export function isSubscriberName(name: string): boolean {
  return /^[a-z](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(name);
}

/** isRoleId: an IAM role's unique id, "AROA" then upper-case letters and digits, 16 to 128 characters (contract.IsRoleID). */
export function isRoleId(s: string): boolean {
  return /^AROA[A-Z0-9]{12,124}$/.test(s);
}

/** handlerSenderId is the SenderId SQS reports for the handler's own sends: "<role id>:<function name>". */
export function handlerSenderId(roleId: string, functionName: string): string {
  return roleId + ":" + functionName;
}

/** validSender: "<role id>:<session>" with exactly one colon and a non-empty session. */
export function validSender(s: string): boolean {
  const at = s.indexOf(":");
  if (at < 0) return false;
  const session = s.slice(at + 1);
  return isRoleId(s.slice(0, at)) && session !== "" && !session.includes(":");
}
