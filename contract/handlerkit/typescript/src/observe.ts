/**
 * Logs and metrics. A log line is JSON on stderr with level, msg and only the
 * fields below: an error code, a request type, a pass, an outcome, a delay,
 * and an exception's class name. Never a body, key, address, accountId or
 * requestId, and never an exception's message, which could carry one.
 * Metrics are CloudWatch embedded-metric-format lines on stdout, written as
 * storehandler.emitMetric writes them.
 */

/** The fields a log line may carry besides level and msg. */
export interface LogFields {
  code?: string;
  type?: string;
  pass?: number;
  outcome?: string;
  delaySeconds?: number;
  /** An exception's class name (never its message). */
  error?: string;
}

/** The levels, as Go's slog writes them. */
export type Level = "INFO" | "WARN" | "ERROR";

/** Writes one line (newline included). */
export type LineWriter = (line: string) => void;

/** The ErasureChannel metric names and dimensions (contract/metrics.go). */
export const METRIC_NAMESPACE = "ErasureChannel";
export const METRIC_NOT_APPLICABLE = "ErasureNotApplicable";
export const METRIC_ANSWERS = "ErasureAnswers";

const FIELD_ORDER: readonly (keyof LogFields)[] = ["code", "type", "pass", "outcome", "delaySeconds", "error"];

/** logLine builds one JSON log line from the allowed fields only. */
export function logLine(level: Level, msg: string, fields: LogFields = {}): string {
  const o: Record<string, unknown> = { level, msg };
  for (const k of FIELD_ORDER) if (fields[k] !== undefined) o[k] = fields[k];
  return JSON.stringify(o) + "\n";
}

/**
 * errorClass is an exception's class name, when it looks like one
 * (an identifier of at most 64 characters), else "Error": a name a store set
 * to something else could hold anything.
 */
export function errorClass(e: unknown): string {
  const name = typeof e === "object" && e !== null ? (e as { name?: unknown }).name : undefined;
  return typeof name === "string" && /^[A-Za-z_$][A-Za-z0-9_$.]{0,63}$/.test(name) ? name : "Error";
}

/**
 * metricLine is one embedded-metric line counting 1 of name by Subscriber,
 * or by Subscriber and extraKey when it is the answers metric; extraKey is
 * always written as a property. Members are in Go's json.Marshal order
 * (sorted), so both adapters write the same bytes.
 */
export function metricLine(timestampMs: number, subscriber: string, name: string, extraKey: string, extraValue: string): string {
  const dims = name === METRIC_ANSWERS ? ["Subscriber", extraKey] : ["Subscriber"];
  const line = sorted({
    _aws: {
      Timestamp: timestampMs,
      CloudWatchMetrics: [{ Namespace: METRIC_NAMESPACE, Dimensions: [dims], Metrics: [{ Name: name, Unit: "Count" }] }],
    },
    Subscriber: subscriber,
    [name]: 1,
    [extraKey]: extraValue,
  });
  return JSON.stringify(line) + "\n";
}

/** sorted copies a JSON value with every object's members in code-unit order, as Go's encoder sorts map keys. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sorted((v as Record<string, unknown>)[k]);
  return out;
}
