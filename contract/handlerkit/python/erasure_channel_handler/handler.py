"""The Lambda SQS handler: what Go's contract/storehandler does, for a Python store.

A store gives make_handler one function per (type, keyKind) pair it
implements; the kit does the rest for every record of a batch, in order:
parse (strict), pass-two marker, expiry, dispatch, the store call under its
time limit, pass two for ERASE and REFILE, the answer (validated before it is
sent), one log line and one metric line. A failed record is reported in
batchItemFailures, never raised. No log line holds a body, key, address,
accountId, requestId or an exception's text.
"""
import json
import os
import sys
import threading
import time

from .constants import load_constants
from .contract import (
    DESTRUCTIVE_TYPES, ERASE, IMPLEMENTABLE_PAIRS, NOT_APPLICABLE, REFILE, ContractError, Pair, answer_for,
    encode_answer, parse_request,
)
from .env import is_sender_id, load_environment

ATTR_PASS = "erasure-pass"
ATTR_PASS_ONE_OUTCOME = "erasure-pass-one-outcome"

DONE, MOVED, NONE_OWNED, NOT_MOVED = "DONE", "MOVED", "NONE_OWNED", "NOT_MOVED"
PASS_ONE_OUTCOMES = {ERASE: (DONE,), REFILE: (MOVED, NONE_OWNED, NOT_MOVED)}

#: The most time kept before the Lambda deadline to send an answer (at most a tenth of the time left).
DEADLINE_RESERVE_NS = 2 * 1000000000

METRIC_NAMESPACE = "ErasureChannel"
METRIC_NOT_APPLICABLE = "ErasureNotApplicable"
METRIC_ANSWERS = "ErasureAnswers"


class ConfigError(ValueError):
    """The implementations given to make_handler are not usable; .problems lists why."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("erasure handler config: " + "; ".join(self.problems))


class DeadlineExceeded(TimeoutError):
    """Raised by Deadline.check(): the store call's time is up (logged BATCH_TIMEOUT)."""


class Deadline:
    """When a store call must end: the batch timeout, or the Lambda deadline
    less a reserve for the answer, whichever is first. The kit stops waiting
    then and fails the record; a call still running should stop too: pass
    remaining() to the store's own client timeouts, or call check() between steps."""

    __slots__ = ("at_ns", "_clock_ns", "_abandoned")

    def __init__(self, at_ns, clock_ns=time.time_ns):
        self.at_ns = at_ns
        self._clock_ns = clock_ns
        self._abandoned = False

    @property
    def at(self):
        """The end, in seconds since the Unix epoch (time.time()'s clock)."""
        return self.at_ns / 1e9

    def remaining(self):
        """Seconds left (0.0 when none)."""
        if self._abandoned:
            return 0.0
        return max(0.0, (self.at_ns - self._clock_ns()) / 1e9)

    def expired(self):
        """Whether the time is up (or the kit has stopped waiting)."""
        return self._abandoned or self._clock_ns() >= self.at_ns

    def check(self):
        """Raise DeadlineExceeded when the time is up."""
        if self.expired():
            raise DeadlineExceeded("erasure store call deadline passed")


def combine(request_type, pass_one, pass_two):
    """The answer after both passes: ERASE is pass two's; REFILE is NOT_MOVED
    if either pass said it, else MOVED if either did, else pass two's."""
    if request_type != REFILE:
        return pass_two
    for o in (NOT_MOVED, MOVED):
        if pass_one == o or pass_two == o:
            return o
    return pass_two


class Handler:
    """One configured handler; handle(event, context) is the Lambda entry point."""

    def __init__(self, env, implementations, sqs_client, clock_ns=time.time_ns, log_stream=None,
                 metrics_stream=None):
        self.env = env
        self.implementations = implementations
        self.sqs = sqs_client
        self.clock_ns = clock_ns
        self.log_stream = log_stream
        self.metrics_stream = metrics_stream
        self.self_sender = env.sender_id

    # --- output ---------------------------------------------------------------

    def _log(self, level, msg, fields=()):
        """One JSON line on stderr: level, msg and only code/type/pass/outcome/delaySeconds."""
        line = {"level": level, "msg": msg}
        line.update(fields)
        stream = self.log_stream or sys.stderr
        stream.write(json.dumps(line, separators=(",", ":")) + "\n")
        stream.flush()

    def _metric(self, name, extra_key, extra_value):
        """One CloudWatch embedded-metric-format line on stdout, as storehandler.emitMetric writes it."""
        dims = ["Subscriber", extra_key] if name == METRIC_ANSWERS else ["Subscriber"]
        line = {
            "_aws": {
                "Timestamp": self.clock_ns() // 1000000,
                "CloudWatchMetrics": [{"Namespace": METRIC_NAMESPACE, "Dimensions": [dims],
                                       "Metrics": [{"Name": name, "Unit": "Count"}]}],
            },
            "Subscriber": self.env.subscriber,
            name: 1,
            extra_key: extra_value,
        }
        stream = self.metrics_stream or sys.stdout
        stream.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
        stream.flush()

    # --- the batch --------------------------------------------------------------

    def handle(self, event, context=None):
        """Process every record; return the ids of those that failed."""
        failures = []
        for rec in (event or {}).get("Records") or ():
            try:
                ok = self._record(rec, context)
            except Exception:  # a bug of the kit or a fake: fail this record, never the batch
                self._log("ERROR", "erasure record failed", {"code": "HANDLER_ERROR"})
                ok = False
            if not ok:
                failures.append({"itemIdentifier": rec.get("messageId", "") if isinstance(rec, dict) else ""})
        return {"batchItemFailures": failures}

    def _record(self, rec, context):
        """One record; True when it is done (answered, re-sent or consumed)."""
        try:
            req = parse_request(rec.get("body"))
        except ContractError as e:
            self._log("WARN", "erasure request refused", {"code": e.code})
            return False
        pass_no, pass_one = self._pass_of(rec, req.type)
        if pass_no == 0:
            self._log("WARN", "erasure request refused", {"code": "BAD_PASS_MARKER", "type": req.type})
            return False
        now = self.clock_ns()
        if req.expired(now):
            self._log("INFO", "erasure request expired: consumed without an answer",
                      {"type": req.type, "pass": pass_no})
            return True
        fn = self.implementations.get(req.pair)
        if fn is None:
            return self._not_applicable(req)
        end = self._call_end(now, context)
        if end is None:
            self._log("WARN", "erasure request deferred", {"code": "NO_TIME_LEFT", "type": req.type, "pass": pass_no})
            return False
        outcome, code = self._call(fn, req, pass_no, end)
        if code:
            self._log("WARN", "erasure store call failed", {"code": code, "type": req.type, "pass": pass_no})
            return False
        if outcome == NOT_APPLICABLE:
            return self._not_applicable(req)
        if req.type in DESTRUCTIVE_TYPES and pass_no == 1:
            try:
                encode_answer(answer_for(req, self.env.subscriber, outcome))
            except ContractError as e:
                self._log("WARN", "erasure store call returned an outcome the contract refuses",
                          {"code": e.code, "type": req.type})
                return False
            return self._enqueue_pass_two(rec, req, outcome)
        if pass_no == 2:
            outcome = combine(req.type, pass_one, outcome)
        return self._answer(req, outcome)

    def _pass_of(self, rec, request_type):
        """(1, None) without a marker; (2, pass one's outcome) for a valid one;
        (0, None) for any other marker."""
        attrs = rec.get("messageAttributes") or {}
        if ATTR_PASS not in attrs:
            return 1, None
        a = attrs[ATTR_PASS]
        if not isinstance(a, dict) or a.get("stringValue") != "2" or request_type not in DESTRUCTIVE_TYPES:
            return 0, None
        sender = (rec.get("attributes") or {}).get("SenderId")
        if not is_sender_id(self.self_sender) or sender != self.self_sender:
            return 0, None
        o = attrs.get(ATTR_PASS_ONE_OUTCOME)
        outcome = o.get("stringValue") if isinstance(o, dict) else None
        if outcome not in PASS_ONE_OUTCOMES[request_type]:
            return 0, None
        return 2, outcome

    def _call_end(self, now, context):
        """When a store call starting now must end (ns), or None without time to start one."""
        end = now + self.env.batch_timeout_seconds * 1000000000
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        if remaining is None:
            return end
        left = int(remaining()) * 1000000
        reserve = min(DEADLINE_RESERVE_NS, left // 10)
        if left - reserve <= 0:
            return None
        return min(end, now + left - reserve)

    def _call(self, fn, req, pass_no, end):
        """Run the store's function in a worker thread and wait until end.
        Returns (outcome, None) or (None, code)."""
        deadline = Deadline(end, self.clock_ns)
        box = {}

        def run():
            try:
                box["outcome"] = fn(req, pass_no, deadline)
            except BaseException as e:  # noqa: B902 - any failure of the store fails the record
                box["error"] = e

        worker = threading.Thread(target=run, name="erasure-store-call", daemon=True)
        worker.start()
        worker.join(max(0.0, (end - self.clock_ns()) / 1e9))
        if worker.is_alive():
            deadline._abandoned = True  # the call keeps running on its own thread; its result is dropped
            return None, "BATCH_TIMEOUT"
        if "error" in box:
            return None, "BATCH_TIMEOUT" if isinstance(box["error"], DeadlineExceeded) else "STORE_CALL_FAILED"
        return box.get("outcome"), None

    def _enqueue_pass_two(self, rec, req, outcome):
        delay = self.env.pass_two_delay_seconds
        try:
            self.sqs.send_message(
                QueueUrl=self.env.queue_url,
                MessageBody=rec["body"],
                DelaySeconds=delay,
                MessageAttributes={
                    ATTR_PASS: {"DataType": "Number", "StringValue": "2"},
                    ATTR_PASS_ONE_OUTCOME: {"DataType": "String", "StringValue": outcome},
                },
            )
        except Exception:
            self._log("WARN", "erasure pass two not enqueued", {"code": "PASS_TWO_ENQUEUE_FAILED", "type": req.type})
            return False
        self._log("INFO", "erasure pass two enqueued", {"type": req.type, "delaySeconds": delay})
        return True

    def _not_applicable(self, req):
        self._metric(METRIC_NOT_APPLICABLE, "MessageType", req.type)
        return self._answer(req, NOT_APPLICABLE)

    def _answer(self, req, outcome):
        """Validate and send the answer; log and count it."""
        members = answer_for(req, self.env.subscriber, outcome)
        response_type = members[0][1]
        try:
            body = encode_answer(members)
        except ContractError:
            self._log("ERROR", "erasure response send failed", {"code": "INVALID_RESPONSE", "type": response_type})
            return False
        try:
            self.sqs.send_message(QueueUrl=self.env.response_queue_url, MessageBody=body)
        except Exception:
            self._log("ERROR", "erasure response send failed", {"code": "SEND_FAILED", "type": response_type})
            return False
        self._log("INFO", "erasure answer sent", {"type": response_type, "outcome": outcome})
        self._metric(METRIC_ANSWERS, "Outcome", outcome)
        return True


def _pairs_of(implementations):
    """Normalise the implementations to {Pair: function}, or raise ConfigError."""
    if not hasattr(implementations, "items"):
        raise ConfigError(["implementations must be a mapping of (type, keyKind) to a function"])
    problems, out = [], {}
    for key, fn in implementations.items():
        try:
            pair = Pair(*key)
        except TypeError:
            problems.append("%r is not a (type, keyKind) pair" % (key,))
            continue
        if pair not in IMPLEMENTABLE_PAIRS:
            problems.append("%s with %s is not a pair a store can implement" % pair)
        elif not callable(fn):
            problems.append("%s with %s has no function" % pair)
        else:
            out[pair] = fn
    if problems:
        raise ConfigError(sorted(problems))
    return out


def make_handler(implementations, sqs_client=None, environ=None, clock_ns=None, log_stream=None,
                 metrics_stream=None):
    """Build the Lambda entry point, handler(event, context).

    implementations maps (type, keyKind) to fn(request, pass_no, deadline) ->
    outcome string: DONE for ERASE; MOVED, NONE_OWNED or NOT_MOVED for REFILE;
    HOLDS_DATA, HOLDS_NONE or CANNOT_ANSWER for CHECK and CLASSIFY; or
    NOT_APPLICABLE. An exception fails the record (SQS retries it).

    Call it at module level, in Lambda's init: it reads the environment
    (environ, default os.environ) and raises HandlerEnvironmentError naming
    every bad variable (never its value), or ConfigError. sqs_client defaults
    to boto3.client("sqs") (region, credentials and AWS_ENDPOINT_URL[_SQS] from
    the environment); clock_ns (default time.time_ns), log_stream (stderr) and
    metrics_stream (stdout) are for tests.
    """
    impls = _pairs_of(implementations)
    destructive = any(p.type in DESTRUCTIVE_TYPES for p in impls)
    env = load_environment(os.environ if environ is None else environ, load_constants(),
                           need_function_name=destructive)
    if sqs_client is None:
        import boto3  # here, not at import: the kit imports fast and tests need no AWS

        sqs_client = boto3.client("sqs")
    h = Handler(env, impls, sqs_client, clock_ns or time.time_ns, log_stream, metrics_stream)
    return h.handle
