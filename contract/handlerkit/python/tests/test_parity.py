"""Parity with Go and ajv: every shared fixture, every capability answer, the schema and constants files."""
import os
import unittest

import _support
from erasure_channel_handler import contract, schema
from erasure_channel_handler.constants import ConstantsError, _evaluate, load_constants

FIXTURES = os.path.join(_support.SCHEMA_DIR, "fixtures")


def verdicts(body):
    try:
        contract.validate(body)
        v = "VALID"
    except contract.ContractError as e:
        v = e.code
    try:
        contract.parse_request(body)
        r = "OK"
    except contract.ContractError as e:
        r = e.code
    return v, r


class FixtureParity(unittest.TestCase):
    def test_every_manifest_fixture(self):
        manifest = _support.load_json(FIXTURES, "manifest.json")
        cases = manifest["cases"]
        self.assertGreater(len(cases), 100)
        disagreements = []
        for case in cases:
            with open(os.path.join(FIXTURES, case["file"]), "rb") as f:
                body = f.read()
            got = verdicts(body)
            if got != (case["validate"], case["parseRequest"]):
                disagreements.append("%s: kit %s, manifest %s/%s (%s)" % (
                    case["file"], got, case["validate"], case["parseRequest"], case["why"]))
        self.assertEqual(disagreements, [])

    def test_fixtures_as_str_bodies_too(self):
        """Lambda hands the body over as str: the verdict of every UTF-8 fixture is the same."""
        manifest = _support.load_json(FIXTURES, "manifest.json")
        for case in manifest["cases"]:
            with open(os.path.join(FIXTURES, case["file"]), "rb") as f:
                raw = f.read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            with self.subTest(case["file"]):
                self.assertEqual(verdicts(text), (case["validate"], case["parseRequest"]))


class CapabilityAnswers(unittest.TestCase):
    def test_every_pair_and_outcome_encodes_valid(self):
        caps = _support.load_json(_support.SCHEMA_DIR, "erasure-capability-fixtures.json")
        self.assertEqual(len(caps["pairs"]), 7)
        implementable = set()
        for pair in caps["pairs"]:
            implementable.add(contract.Pair(pair["type"], pair["keyKind"]))
            req = contract.parse_request(_request_body(pair["request"]))
            self.assertEqual(req.pair, (pair["type"], pair["keyKind"]))
            for outcome in pair["implementedOutcomes"] + [pair["notImplementedOutcome"]]:
                with self.subTest(pair=pair["type"] + " " + pair["keyKind"], outcome=outcome):
                    body = contract.encode_answer(contract.answer_for(req, _support.SUBSCRIBER, outcome))
                    self.assertEqual(contract.validate(body), pair["responseType"])
                    members = dict(contract.answer_for(req, _support.SUBSCRIBER, outcome))
                    self.assertEqual(members[pair["outcomeField"]], outcome)
        self.assertEqual(implementable, set(contract.IMPLEMENTABLE_PAIRS))

    def test_wrong_outcomes_are_refused(self):
        req = contract.parse_request(_request_body({
            "type": "erasure/ERASE", "requestId": "r", "sendNo": 1, "expiresAt": "2099-01-01T00:00:00Z",
            "keyKind": "ACCOUNT", "key": "acct-0001"}))
        for bad in ("MOVED", "HOLDS_DATA", "done", "", None, 1):
            with self.subTest(bad=bad):
                with self.assertRaises(contract.ContractError):
                    contract.encode_answer(contract.answer_for(req, _support.SUBSCRIBER, bad))
        with self.assertRaises(contract.ContractError):
            contract.encode_answer(contract.answer_for(req, "Not-A-Subscriber", "DONE"))

    def test_field_order_and_escaping_as_go(self):
        req = contract.parse_request(
            '{"type":"erasure/CHECK","requestId":"r\\"\\\\\u00e9\U0001F600","expiresAt":"2099-01-01T00:00:00Z",'
            '"keyKind":"ADDRESS","key":"a\u212a@b"}')
        body = contract.encode_answer(contract.answer_for(req, "toy", "HOLDS_NONE"))
        self.assertEqual(body, '{"type":"erasure/HOLDINGS","requestId":"r\\"\\\\\u00e9\U0001F600","subscriber":"toy",'
                               '"keyKind":"ADDRESS","key":"a\u212a@b","answer":"HOLDS_NONE"}')
        req = contract.parse_request(_request_body({
            "type": "erasure/REFILE", "requestId": "r", "sendNo": 7, "expiresAt": "2099-01-01T00:00:00.5Z",
            "keyKind": "ADDRESS", "from": "a@b", "to": "c@d", "accountId": "acct"}))
        self.assertEqual(contract.encode_answer(contract.answer_for(req, "toy", "MOVED")),
                         '{"type":"erasure/REFILE_ACK","requestId":"r","sendNo":7,"subscriber":"toy","outcome":"MOVED"}')


def _request_body(fields):
    import json
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


class RequestFields(unittest.TestCase):
    def test_refile_fields_and_expiry(self):
        req = contract.parse_request(_request_body({
            "type": "erasure/REFILE", "requestId": "r", "sendNo": 3, "expiresAt": "2030-02-03T04:05:06.123456789Z",
            "keyKind": "ADDRESS", "from": "a@b", "to": "c@d", "accountId": "acct-9"}))
        self.assertEqual((req.from_, req.to, req.account_id, req.key, req.send_no), ("a@b", "c@d", "acct-9", None, 3))
        self.assertEqual(req.expires_at.isoformat(), "2030-02-03T04:05:06.123456+00:00")
        at_ns = int(req.expires_at.timestamp()) * 10 ** 9 + 123456789
        self.assertEqual(req.expires_at_ns, at_ns)
        self.assertFalse(req.expired(at_ns - 1))
        self.assertTrue(req.expired(at_ns))
        with self.assertRaises(Exception):
            req.key = "x"  # frozen

    def test_year_zero_is_valid_and_long_expired(self):
        req = contract.parse_request(_request_body({
            "type": "erasure/CHECK", "requestId": "r", "expiresAt": "0000-02-29T00:00:00Z",
            "keyKind": "ACCOUNT", "key": "k"}))
        self.assertTrue(req.expired(0))
        self.assertEqual(req.send_no, None)

    def test_deep_nesting_is_judged_not_crashed(self):
        deep = '{"type":' + "[" * 100000 + "]" * 100000 + "}"
        self.assertEqual(verdicts(deep), ("INVALID_MESSAGE", "INVALID_MESSAGE"))
        self.assertEqual(verdicts(deep[:-2] + "}"), ("NOT_JSON", "NOT_JSON"))
        self.assertEqual(verdicts("[" * 100000 + "]" * 100000), ("INVALID_MESSAGE", "INVALID_MESSAGE"))

    def test_profile_edges(self):
        base = '{"type":"erasure/CHECK","requestId":"r","expiresAt":"2099-01-01T00:00:00Z","keyKind":"ACCOUNT","key":"k"%s}'
        self.assertEqual(verdicts(base % ""), ("VALID", "OK"))
        for extra, want in [
            (',"key":"k"', "INVALID_MESSAGE"),            # duplicate name
            (',"k\\u0065y":"k"', "INVALID_MESSAGE"),      # duplicate after unescaping
            (',"x":NaN', "NOT_JSON"),
            (',"x":Infinity', "NOT_JSON"),
            (',"x":1', "INVALID_MESSAGE"),                # unknown member
            (',"x":"\\ud800"', "INVALID_MESSAGE"),        # lone surrogate
            (',"x":-1', "INVALID_MESSAGE"),
            (',"x":01', "NOT_JSON"),
        ]:
            with self.subTest(extra=extra):
                self.assertEqual(verdicts(base % extra)[0], want)
        self.assertEqual(verdicts(base.replace('"key":"k"', '"key":"k\\n"') % "")[0], "INVALID_MESSAGE")
        self.assertEqual(verdicts((base % "") + "\n"), ("VALID", "OK"))  # trailing whitespace is JSON
        self.assertEqual(verdicts((base % "").replace("2099-01-01T00:00:00Z", "2099-01-01T00:00:00Z\\n"))[0],
                         "INVALID_MESSAGE")  # '$' is the end of the string, not before a final newline
        big = base.replace('"erasure/CHECK"', '"erasure/ERASE"').replace('"requestId":"r"', '"requestId":"r","sendNo":%s')
        self.assertEqual(verdicts(big % ("9" * 5000, ""))[0], "INVALID_MESSAGE")
        self.assertEqual(verdicts(big % ("2147483647", ""))[0], "VALID")
        self.assertEqual(verdicts(big % ("2147483648", ""))[0], "INVALID_MESSAGE")
        self.assertEqual(verdicts(big % ("1.0", ""))[0], "INVALID_MESSAGE")
        self.assertEqual(verdicts(big % ("true", ""))[0], "INVALID_MESSAGE")


class SchemaAndConstantsFiles(unittest.TestCase):
    def test_package_copies_are_the_repository_files(self):
        for name in ("erasure-contract.schema.json", "erasure-channel-constants.json"):
            with open(os.path.join(_support.SCHEMA_DIR, name), "rb") as a, \
                    open(os.path.join(_support.KIT_DIR, "erasure_channel_handler", name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

    def test_constants_checked_on_load(self):
        c = load_constants()
        want = _support.constants_json()
        self.assertEqual(c.pass_two_delay_cap_seconds, want["passTwoDelayCapSeconds"])
        self.assertEqual(c.batch_timeout_cap_seconds, want["batchTimeoutCapSeconds"])
        self.assertEqual(c.handler_timeout_cap_seconds, want["handlerTimeoutCapSeconds"])
        self.assertEqual(_evaluate("2 * (3 - 1) + 4 <= 8 < 9", {}), True)
        self.assertEqual(_evaluate("2 * (3 - 1) + 4 < 8", {}), False)
        with self.assertRaises(ConstantsError):
            _evaluate("a + 1", {})

    def test_broken_derivation_is_refused(self):
        import json
        import tempfile
        doc = _support.load_json(_support.SCHEMA_DIR, "erasure-channel-constants.json")
        doc["constants"]["visibilityTimeoutCapSeconds"]["value"] += 1
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        try:
            with self.assertRaises(ConstantsError):
                load_constants(f.name)
        finally:
            os.unlink(f.name)

    def test_validator_is_strict_about_the_schema(self):
        with self.assertRaises(schema.SchemaError):
            schema.compile_schema({"type": "string", "format": "email"})
        for p in ("^a.b$", "\\d+", "(?=a)", "\\w", "a{", "[]", "\\u0041"):
            with self.subTest(pattern=p), self.assertRaises(schema.SchemaError):
                schema.translate_pattern(p)
        self.assertEqual(schema.translate_pattern("^[^A-Z\\x00-\\x1F]+@x{1,2}$"), "^[^A-Z\\x00-\\x1F]+@x{1,2}\\Z")


if __name__ == "__main__":
    unittest.main()
