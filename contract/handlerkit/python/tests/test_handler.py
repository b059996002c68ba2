"""The handler, record by record, with a fake SQS client: the table of the kit spec."""
import json
import threading
import time
import unittest

import _support
from _support import QUEUE_URL, RESPONSE_QUEUE_URL, SELF_SENDER, SUBSCRIBER, Capture, FakeContext, FakeSQS
from erasure_channel_handler import (
    ConfigError, DeadlineExceeded, HandlerEnvironmentError, Pair, Request, make_handler,
)

# Personal values: none may ever appear in a log or metric line.
SECRET_ACCOUNT = "acct-secret-4711"
SECRET_ADDRESS = "secret.person@example.invalid"
SECRET_FROM = "secret-from@example.invalid"
SECRET_TO = "secret-to@example.invalid"
SECRET_REQUEST_ID = "req-secret-0815"
PERSONAL = (SECRET_ACCOUNT, SECRET_ADDRESS, SECRET_FROM, SECRET_TO, SECRET_REQUEST_ID, "secret")
FUTURE = "2099-01-01T00:00:00Z"
PAST = "2001-01-01T00:00:00Z"
ALLOWED_LOG_FIELDS = {"level", "msg", "code", "type", "pass", "outcome", "delaySeconds"}



def assert_no_personal_data(text):
    """No personal value anywhere; every log line has only the allowed fields."""
    for value in PERSONAL:
        if value in text:
            raise AssertionError("personal value in the output: " + value)
    for line in text.splitlines():
        if line.startswith('{"level"') and not set(json.loads(line)) <= ALLOWED_LOG_FIELDS:
            raise AssertionError("log line with other fields: " + line)


def body(type_, key_kind="ACCOUNT", expires=FUTURE, **extra):
    fields = {"type": type_, "requestId": SECRET_REQUEST_ID}
    if type_ in ("erasure/ERASE", "erasure/REFILE"):
        fields["sendNo"] = 2
    fields["expiresAt"] = expires
    fields["keyKind"] = key_kind
    if type_ == "erasure/REFILE":
        fields.update({"from": SECRET_FROM, "to": SECRET_TO, "accountId": SECRET_ACCOUNT})
    else:
        fields["key"] = SECRET_ACCOUNT if key_kind == "ACCOUNT" else SECRET_ADDRESS
    fields.update(extra)
    return json.dumps(fields, separators=(",", ":"))


def record(body_, message_id="m1", marker=None, outcome=None, sender=None):
    rec = {"messageId": message_id, "body": body_, "attributes": {"SenderId": sender or "AIDAOTHERSENDER:x"},
           "messageAttributes": {}}
    if marker is not None:
        rec["messageAttributes"]["erasure-pass"] = {"stringValue": marker, "dataType": "Number"}
    if outcome is not None:
        rec["messageAttributes"]["erasure-pass-one-outcome"] = {"stringValue": outcome, "dataType": "String"}
    return rec


def pass_two(body_, outcome, message_id="m2", sender=SELF_SENDER):
    return record(body_, message_id, marker="2", outcome=outcome, sender=sender)


class Kit:
    """One handler with a fake SQS client, captured output and call records."""

    def __init__(self, impls, fail_urls=(), env=None, clock_ns=None):
        self.sqs = FakeSQS(fail_urls)
        self.out = Capture()
        self.handler = make_handler(impls, sqs_client=self.sqs, environ=env or _support.good_env(),
                                    clock_ns=clock_ns, log_stream=self.out.log, metrics_stream=self.out.metrics)

    def run(self, *records, context="default"):
        try:
            return self.handler({"Records": list(records)}, FakeContext() if context == "default" else context)
        finally:
            assert_no_personal_data(self.out.log.getvalue() + self.out.metrics.getvalue())

    def failed(self, result):
        return [f["itemIdentifier"] for f in result["batchItemFailures"]]

    def answers(self):
        return [json.loads(m["MessageBody"]) for m in self.sqs.to(RESPONSE_QUEUE_URL)]

    def codes(self):
        return [line.get("code") for line in self.out.log_lines() if "code" in line]


def returning(outcome, calls=None):
    def fn(request, pass_no, deadline):
        if calls is not None:
            calls.append((request, pass_no, deadline))
        return outcome
    return fn


ALL_PAIRS = [Pair("erasure/ERASE", "ACCOUNT"), Pair("erasure/ERASE", "ADDRESS"), Pair("erasure/REFILE", "ADDRESS"),
             Pair("erasure/CLASSIFY", "ACCOUNT"), Pair("erasure/CLASSIFY", "ADDRESS"),
             Pair("erasure/CHECK", "ACCOUNT"), Pair("erasure/CHECK", "ADDRESS")]
FIRST = {"erasure/ERASE": "DONE", "erasure/REFILE": "MOVED", "erasure/CLASSIFY": "HOLDS_DATA",
         "erasure/CHECK": "HOLDS_NONE"}


class EveryPair(unittest.TestCase):
    def test_implemented_pairs_run_and_answer(self):
        for pair in ALL_PAIRS:
            with self.subTest(pair=pair):
                calls = []
                kit = Kit({pair: returning(FIRST[pair.type], calls)})
                b = body(pair.type, pair.key_kind)
                self.assertEqual(kit.failed(kit.run(record(b))), [])
                self.assertEqual(calls[0][1], 1)
                self.assertIsInstance(calls[0][0], Request)
                if pair.type in ("erasure/ERASE", "erasure/REFILE"):
                    self.assertEqual(kit.answers(), [])  # pass one never answers
                    [resent] = kit.sqs.to(QUEUE_URL)
                    self.assertEqual(resent, {
                        "QueueUrl": QUEUE_URL, "MessageBody": b, "DelaySeconds": 30,
                        "MessageAttributes": {
                            "erasure-pass": {"DataType": "Number", "StringValue": "2"},
                            "erasure-pass-one-outcome": {"DataType": "String", "StringValue": FIRST[pair.type]}}})
                    self.assertEqual(kit.failed(kit.run(pass_two(b, FIRST[pair.type]))), [])
                    self.assertEqual(calls[1][1], 2)
                self.assertEqual(len(kit.sqs.to(RESPONSE_QUEUE_URL)), 1)
                self.assertNotIn("MessageAttributes", kit.sqs.to(RESPONSE_QUEUE_URL)[0])
                [answer] = kit.answers()
                self.assertEqual(answer["subscriber"], SUBSCRIBER)
                self.assertEqual(answer["requestId"], SECRET_REQUEST_ID)
                self.assertEqual(answer.get("outcome", answer.get("answer")), FIRST[pair.type])
                [metric] = kit.out.metric_lines()
                self.assertEqual(metric["ErasureAnswers"], 1)
                self.assertEqual(metric["Outcome"], FIRST[pair.type])

    def test_unimplemented_pairs_answer_not_applicable_with_metric(self):
        for pair in ALL_PAIRS:
            with self.subTest(pair=pair):
                others = {p: returning(FIRST[p.type]) for p in ALL_PAIRS if p != pair}
                kit = Kit(others)
                self.assertEqual(kit.failed(kit.run(record(body(pair.type, pair.key_kind)))), [])
                [answer] = kit.answers()
                self.assertEqual(answer.get("outcome", answer.get("answer")), "NOT_APPLICABLE")
                self.assertEqual(kit.sqs.to(QUEUE_URL), [])
                na, answers = kit.out.metric_lines()
                self.assertEqual(na["ErasureNotApplicable"], 1)
                self.assertEqual(na["MessageType"], pair.type)
                self.assertEqual(na["_aws"]["CloudWatchMetrics"][0]["Dimensions"], [["Subscriber"]])
                self.assertEqual(answers["Outcome"], "NOT_APPLICABLE")

    def test_store_saying_not_applicable_is_the_same(self):
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("NOT_APPLICABLE")})
        self.assertEqual(kit.failed(kit.run(record(body("erasure/ERASE")))), [])
        self.assertEqual(kit.answers()[0]["outcome"], "NOT_APPLICABLE")
        self.assertEqual(kit.sqs.to(QUEUE_URL), [])
        self.assertIn("ErasureNotApplicable", kit.out.metric_lines()[0])

    def test_metric_lines_are_go_s_exactly(self):
        kit = Kit({}, clock_ns=lambda: 1700000000123456789)
        kit.run(record(body("erasure/CHECK")))
        na, answers = kit.out.metrics.getvalue().splitlines()
        self.assertEqual(na, '{"ErasureNotApplicable":1,"MessageType":"erasure/CHECK","Subscriber":"toy-store",'
                             '"_aws":{"CloudWatchMetrics":[{"Dimensions":[["Subscriber"]],"Metrics":[{"Name":'
                             '"ErasureNotApplicable","Unit":"Count"}],"Namespace":"ErasureChannel"}],'
                             '"Timestamp":1700000000123}}')
        self.assertEqual(answers, '{"ErasureAnswers":1,"Outcome":"NOT_APPLICABLE","Subscriber":"toy-store",'
                                  '"_aws":{"CloudWatchMetrics":[{"Dimensions":[["Subscriber","Outcome"]],"Metrics":'
                                  '[{"Name":"ErasureAnswers","Unit":"Count"}],"Namespace":"ErasureChannel"}],'
                                  '"Timestamp":1700000000123}}')

    def test_request_fields_reach_the_store(self):
        calls = []
        kit = Kit({Pair("erasure/REFILE", "ADDRESS"): returning("MOVED", calls)})
        kit.run(record(body("erasure/REFILE", "ADDRESS")))
        req = calls[0][0]
        self.assertEqual((req.type, req.request_id, req.send_no, req.key_kind, req.key),
                         ("erasure/REFILE", SECRET_REQUEST_ID, 2, "ADDRESS", None))
        self.assertEqual((req.from_, req.to, req.account_id), (SECRET_FROM, SECRET_TO, SECRET_ACCOUNT))
        self.assertEqual(req.expires_at.year, 2099)


class PassTwo(unittest.TestCase):
    def test_refile_combines_both_passes(self):
        table = [("MOVED", "MOVED", "MOVED"), ("MOVED", "NONE_OWNED", "MOVED"), ("NONE_OWNED", "MOVED", "MOVED"),
                 ("NONE_OWNED", "NONE_OWNED", "NONE_OWNED"), ("NOT_MOVED", "MOVED", "NOT_MOVED"),
                 ("MOVED", "NOT_MOVED", "NOT_MOVED"), ("NONE_OWNED", "NOT_MOVED", "NOT_MOVED")]
        for one, two, want in table:
            with self.subTest(one=one, two=two):
                kit = Kit({Pair("erasure/REFILE", "ADDRESS"): returning(two)})
                self.assertEqual(kit.failed(kit.run(pass_two(body("erasure/REFILE", "ADDRESS"), one))), [])
                self.assertEqual(kit.answers()[0]["outcome"], want)

    def test_bad_markers_are_refused_before_anything(self):
        erase = body("erasure/ERASE")
        cases = {
            "forged sender": pass_two(erase, "DONE", sender="AROAEXAMPLEROLE0001:other-function"),
            "sender of another role": pass_two(erase, "DONE", sender="AROAOTHERROLE000001:erasure-handler-toy"),
            "no sender": record(erase, marker="2", outcome="DONE", sender=""),
            "sender with a suffix": pass_two(erase, "DONE", sender=SELF_SENDER + "x"),
            "marker 1": record(erase, marker="1", outcome="DONE", sender=SELF_SENDER),
            "marker 3": record(erase, marker="3", outcome="DONE", sender=SELF_SENDER),
            "marker empty": record(erase, marker="", outcome="DONE", sender=SELF_SENDER),
            "no pass-one outcome": record(erase, marker="2", sender=SELF_SENDER),
            "outcome of the other type": pass_two(erase, "MOVED"),
            "NOT_APPLICABLE outcome": pass_two(erase, "NOT_APPLICABLE"),
            "lower-case outcome": pass_two(erase, "done"),
            "marker on CHECK": pass_two(body("erasure/CHECK"), "DONE"),
            "marker on CLASSIFY": pass_two(body("erasure/CLASSIFY"), "HOLDS_DATA"),
            "REFILE with DONE": pass_two(body("erasure/REFILE", "ADDRESS"), "DONE"),
            "forged marker on an expired request": pass_two(body("erasure/ERASE", expires=PAST), "DONE",
                                                            sender="AIDAX:y"),
        }
        null_marker = record(erase, sender=SELF_SENDER)
        null_marker["messageAttributes"]["erasure-pass"] = None
        cases["null marker"] = null_marker
        for name, rec in cases.items():
            with self.subTest(name):
                calls = []
                kit = Kit({p: returning(FIRST[p.type], calls) for p in ALL_PAIRS})
                self.assertEqual(kit.failed(kit.run(rec)), [rec["messageId"]])
                self.assertEqual((calls, kit.sqs.sent), ([], []))
                self.assertEqual(kit.codes(), ["BAD_PASS_MARKER"])

    def test_marker_needs_a_destructive_pair_for_self(self):
        # No destructive pair: AWS_LAMBDA_FUNCTION_NAME is not needed, and no marker is ever accepted.
        kit = Kit({Pair("erasure/CHECK", "ACCOUNT"): returning("HOLDS_DATA")},
                  env=_support.good_env(AWS_LAMBDA_FUNCTION_NAME=None))
        rec = pass_two(body("erasure/ERASE"), "DONE", sender=_support.ROLE_ID + ":")
        self.assertEqual(kit.failed(kit.run(rec)), ["m2"])
        self.assertEqual(kit.codes(), ["BAD_PASS_MARKER"])


class Refusals(unittest.TestCase):
    def test_invalid_bodies_fail_with_their_code(self):
        table = {
            "NOT_JSON": "{not json",
            "INVALID_MESSAGE": body("erasure/ERASE", key="x\u0001"),
            "NOT_A_REQUEST": json.dumps({"type": "erasure/ACK", "requestId": "r", "sendNo": 1,
                                         "subscriber": "s", "outcome": "DONE"}),
        }
        for code, b in table.items():
            with self.subTest(code):
                kit = Kit({p: returning(FIRST[p.type]) for p in ALL_PAIRS})
                self.assertEqual(kit.failed(kit.run(record(b))), ["m1"])
                self.assertEqual(kit.codes(), [code])
                self.assertEqual(kit.out.log_lines()[0]["msg"], "erasure request refused")
                self.assertEqual(kit.sqs.sent, [])
        kit = Kit({})
        self.assertEqual(kit.failed(kit.run({"messageId": "m9"})), ["m9"])  # no body at all

    def test_expired_is_consumed_without_answer(self):
        calls = []
        kit = Kit({p: returning(FIRST[p.type], calls) for p in ALL_PAIRS})
        self.assertEqual(kit.failed(kit.run(record(body("erasure/ERASE", expires=PAST)))), [])
        self.assertEqual((calls, kit.sqs.sent, kit.out.metric_lines()), ([], [], []))
        [line] = kit.out.log_lines()
        self.assertEqual(line, {"level": "INFO", "msg": "erasure request expired: consumed without an answer",
                                "type": "erasure/ERASE", "pass": 1})

    def test_expiry_is_by_the_store_clock_at_the_instant(self):
        at = 4102444800 * 10 ** 9  # 2100-01-01T00:00:00Z
        b = body("erasure/CHECK", expires="2100-01-01T00:00:00Z")
        kit = Kit({}, clock_ns=lambda: at - 1)
        kit.run(record(b))
        self.assertEqual(len(kit.answers()), 1)
        kit = Kit({}, clock_ns=lambda: at)
        kit.run(record(b))
        self.assertEqual(kit.answers(), [])

    def test_store_failures(self):
        def raises(exc):
            def fn(request, pass_no, deadline):
                raise exc
            return fn
        for name, fn, code in [
            ("throws", raises(RuntimeError("db down for " + SECRET_ACCOUNT)), "STORE_CALL_FAILED"),
            ("deadline check", raises(DeadlineExceeded()), "BATCH_TIMEOUT"),
            ("bad outcome on pass one", returning("HOLDS_DATA"), "INVALID_MESSAGE"),
            ("no outcome", returning(None), "INVALID_MESSAGE"),
        ]:
            with self.subTest(name):
                kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): fn})
                self.assertEqual(kit.failed(kit.run(record(body("erasure/ERASE")))), ["m1"])
                self.assertEqual(kit.codes(), [code])
                self.assertEqual(kit.sqs.sent, [])

    def test_invalid_answer_is_never_sent(self):
        for outcome in ("DONE", "", None, "NOT_MOVED"):
            with self.subTest(outcome=outcome):
                kit = Kit({Pair("erasure/CHECK", "ACCOUNT"): returning(outcome)})
                self.assertEqual(kit.failed(kit.run(record(body("erasure/CHECK")))), ["m1"])
                self.assertEqual(kit.codes(), ["INVALID_RESPONSE"])
                self.assertEqual(kit.sqs.sent, [])
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("MOVED")})  # pass two of ERASE
        self.assertEqual(kit.failed(kit.run(pass_two(body("erasure/ERASE"), "DONE"))), ["m2"])
        self.assertEqual(kit.codes(), ["INVALID_RESPONSE"])

    def test_store_overrun_fails_at_its_end(self):
        release = threading.Event()
        seen = []

        def slow(request, pass_no, deadline):
            seen.append(deadline)
            release.wait(10)
            return "DONE"
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): slow})  # batch timeout 1 s
        start = time.monotonic()
        result = kit.run(record(body("erasure/ERASE")), context=FakeContext(60000))
        elapsed = time.monotonic() - start
        release.set()
        self.assertEqual(kit.failed(result), ["m1"])
        self.assertEqual(kit.codes(), ["BATCH_TIMEOUT"])
        self.assertTrue(0.9 <= elapsed < 2.5, elapsed)
        self.assertTrue(seen[0].expired())
        self.assertEqual(seen[0].remaining(), 0.0)
        self.assertEqual(kit.sqs.sent, [])

    def test_call_end_is_the_lambda_deadline_less_the_reserve(self):
        seen = []
        kit = Kit({Pair("erasure/CHECK", "ACCOUNT"): returning("HOLDS_DATA", seen)},
                  env=_support.good_env(ERASURE_BATCH_TIMEOUT_SECONDS="60"), clock_ns=lambda: 10 ** 18)
        kit.run(record(body("erasure/CHECK")), context=FakeContext(5000))  # reserve 0.5 s
        self.assertEqual(seen[0][2].at_ns, 10 ** 18 + 4500 * 10 ** 6)
        kit.run(record(body("erasure/CHECK")), context=FakeContext(50000))  # reserve 2 s
        self.assertEqual(seen[1][2].at_ns, 10 ** 18 + 48000 * 10 ** 6)
        kit.run(record(body("erasure/CHECK")), context=FakeContext(600000))  # the batch timeout first
        self.assertEqual(seen[2][2].at_ns, 10 ** 18 + 60 * 10 ** 9)
        kit.run(record(body("erasure/CHECK")), context=None)  # no context: the batch timeout
        self.assertEqual(seen[3][2].at_ns, 10 ** 18 + 60 * 10 ** 9)

    def test_no_time_left_fails_without_calling(self):
        calls = []
        kit = Kit({Pair("erasure/CHECK", "ACCOUNT"): returning("HOLDS_DATA", calls)})
        self.assertEqual(kit.failed(kit.run(record(body("erasure/CHECK")), context=FakeContext(0))), ["m1"])
        self.assertEqual((calls, kit.codes()), ([], ["NO_TIME_LEFT"]))

    def test_send_failures(self):
        kit = Kit({Pair("erasure/CHECK", "ACCOUNT"): returning("HOLDS_DATA")}, fail_urls=[RESPONSE_QUEUE_URL])
        self.assertEqual(kit.failed(kit.run(record(body("erasure/CHECK")))), ["m1"])
        self.assertEqual(kit.codes(), ["SEND_FAILED"])
        self.assertEqual(kit.out.metric_lines(), [])
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE")}, fail_urls=[QUEUE_URL])
        self.assertEqual(kit.failed(kit.run(record(body("erasure/ERASE")))), ["m1"])
        self.assertEqual(kit.codes(), ["PASS_TWO_ENQUEUE_FAILED"])
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE")}, fail_urls=[RESPONSE_QUEUE_URL])
        self.assertEqual(kit.failed(kit.run(pass_two(body("erasure/ERASE"), "DONE"))), ["m2"])
        self.assertEqual(kit.codes(), ["SEND_FAILED"])

    def test_a_mixed_batch_fails_only_its_bad_records(self):
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE"),
                   Pair("erasure/CHECK", "ADDRESS"): returning("HOLDS_NONE")})
        result = kit.run(
            record(body("erasure/ERASE"), "good-erase"),
            record("[]", "bad-body"),
            record(body("erasure/CHECK", "ADDRESS"), "good-check"),
            pass_two(body("erasure/ERASE"), "DONE", "forged", sender="AIDAX:y"),
            record(body("erasure/CLASSIFY"), "good-na"),
            record(body("erasure/CHECK", expires=PAST), "expired"),
            pass_two(body("erasure/ERASE"), "DONE", "good-pass-two"),
        )
        self.assertEqual(kit.failed(result), ["bad-body", "forged"])
        self.assertEqual(len(kit.sqs.to(QUEUE_URL)), 1)
        self.assertEqual([a.get("outcome", a.get("answer")) for a in kit.answers()],
                         ["HOLDS_NONE", "NOT_APPLICABLE", "DONE"])

    def test_empty_event(self):
        kit = Kit({})
        self.assertEqual(kit.run(), {"batchItemFailures": []})


class LogLines(unittest.TestCase):
    def test_answer_and_enqueue_lines(self):
        kit = Kit({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE")})
        kit.run(record(body("erasure/ERASE")))
        kit.run(pass_two(body("erasure/ERASE"), "DONE"))
        self.assertEqual(kit.out.log_lines(), [
            {"level": "INFO", "msg": "erasure pass two enqueued", "type": "erasure/ERASE", "delaySeconds": 30},
            {"level": "INFO", "msg": "erasure answer sent", "type": "erasure/ACK", "outcome": "DONE"},
        ])


class Init(unittest.TestCase):
    def test_environment_problems_name_the_variable_never_the_value(self):
        caps = _support.constants_json()
        over_delay = str(caps["passTwoDelayCapSeconds"] + 1)
        over_batch = str(min(caps["batchTimeoutCapSeconds"], caps["handlerTimeoutCapSeconds"]) + 1)
        table = [
            ("ERASURE_SUBSCRIBER", "Secret_Store_Name", "not a subscriber name"),
            ("ERASURE_SUBSCRIBER", None, "missing"),
            ("ERASURE_SUBSCRIBER", "", "missing"),
            ("ERASURE_QUEUE_URL", "ftp://secret-queue-host/q", "not an http(s) queue URL"),
            ("ERASURE_RESPONSE_QUEUE_URL", "secret-queue", "not an http(s) queue URL"),
            ("ERASURE_PASS_TWO_DELAY_SECONDS", over_delay,
             "above the cap of %d s (passTwoDelayCapSeconds)" % caps["passTwoDelayCapSeconds"]),
            ("ERASURE_PASS_TWO_DELAY_SECONDS", "-1", "not a whole number of seconds"),
            ("ERASURE_PASS_TWO_DELAY_SECONDS", "1.5", "not a whole number of seconds"),
            ("ERASURE_PASS_TWO_DELAY_SECONDS", "\u0663", "not a whole number of seconds"),  # an Arabic-Indic 3
            ("ERASURE_PASS_TWO_DELAY_SECONDS", "0000000", "not a whole number of seconds"),
            ("ERASURE_BATCH_TIMEOUT_SECONDS", "0", "below the minimum of 1 s"),
            ("ERASURE_BATCH_TIMEOUT_SECONDS", over_batch, "above the cap of %s s" % (int(over_batch) - 1)),
            ("ERASURE_BATCH_TIMEOUT_SECONDS", " 5", "not a whole number of seconds"),
            ("ERASURE_HANDLER_ROLE_ID", "AIDASECRETUSER00001", "not an IAM role's unique id"),
            ("ERASURE_HANDLER_ROLE_ID", "AROAshort", "not an IAM role's unique id"),
            ("AWS_LAMBDA_FUNCTION_NAME", None, "missing"),
        ]
        for variable, value, problem in table:
            with self.subTest(variable=variable, value=value):
                with self.assertRaises(HandlerEnvironmentError) as cm:
                    make_handler({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE")}, sqs_client=FakeSQS(),
                                 environ=_support.good_env(**{variable: value}))
                err = cm.exception
                self.assertEqual([v for v, _ in err.problems], [variable])
                self.assertIn(variable + ": " + problem, str(err))
                if value:
                    self.assertNotIn(value.strip(), str(err))

    def test_every_problem_at_once(self):
        with self.assertRaises(HandlerEnvironmentError) as cm:
            make_handler({}, sqs_client=FakeSQS(), environ={})
        self.assertEqual([v for v, _ in cm.exception.problems], [
            "ERASURE_PASS_TWO_DELAY_SECONDS", "ERASURE_BATCH_TIMEOUT_SECONDS", "ERASURE_SUBSCRIBER",
            "ERASURE_RESPONSE_QUEUE_URL", "ERASURE_QUEUE_URL", "ERASURE_HANDLER_ROLE_ID"])

    def test_caps_are_accepted_at_the_cap(self):
        caps = _support.constants_json()
        make_handler({}, sqs_client=FakeSQS(), environ=_support.good_env(
            ERASURE_PASS_TWO_DELAY_SECONDS=str(caps["passTwoDelayCapSeconds"]),
            ERASURE_BATCH_TIMEOUT_SECONDS=str(min(caps["batchTimeoutCapSeconds"], caps["handlerTimeoutCapSeconds"]))))
        make_handler({}, sqs_client=FakeSQS(), environ=_support.good_env(ERASURE_PASS_TWO_DELAY_SECONDS="0"))

    def test_config_errors(self):
        for impls in ({("erasure/REFILE", "ACCOUNT"): returning("MOVED")},
                      {("erasure/ACK", "ACCOUNT"): returning("DONE")},
                      {("erasure/CHECK", "ACCOUNT"): "not a function"},
                      {"erasure/CHECK": returning("DONE")},
                      [("erasure/CHECK", "ACCOUNT")]):
            with self.subTest(impls=impls), self.assertRaises(ConfigError):
                make_handler(impls, sqs_client=FakeSQS(), environ=_support.good_env())


class DefaultStreams(unittest.TestCase):
    def test_logs_on_stderr_metrics_on_stdout_nothing_personal(self):
        import contextlib
        import io
        out, err = io.StringIO(), io.StringIO()
        sqs = FakeSQS(fail_urls=[QUEUE_URL])
        handler = make_handler({Pair("erasure/ERASE", "ACCOUNT"): returning("DONE")}, sqs_client=sqs,
                               environ=_support.good_env())

        def boom(request, pass_no, deadline):
            raise RuntimeError(request.key)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            handler({"Records": [record(body("erasure/ERASE"), "a"), record(body("erasure/CHECK"), "b"),
                                 record(body("erasure/ERASE", key=SECRET_ACCOUNT + "\u0001"), "c")]}, FakeContext())
            make_handler({Pair("erasure/ERASE", "ADDRESS"): boom}, sqs_client=sqs, environ=_support.good_env())(
                {"Records": [record(body("erasure/ERASE", "ADDRESS"), "d")]}, FakeContext())
        self.assertIn("ErasureNotApplicable", out.getvalue())
        self.assertNotIn('"level"', out.getvalue())
        codes = [json.loads(line).get("code") for line in err.getvalue().splitlines()]
        self.assertEqual(codes, ["PASS_TWO_ENQUEUE_FAILED", None, "INVALID_MESSAGE", "STORE_CALL_FAILED"])
        assert_no_personal_data(out.getvalue() + err.getvalue())


if __name__ == "__main__":
    unittest.main()
