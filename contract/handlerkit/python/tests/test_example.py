"""The example toy store: every capability fixture through app.handler, and the deploy directory build.sh makes."""
import datetime
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import _support
from _support import QUEUE_URL, SELF_SENDER, FakeContext, FakeSQS

EXAMPLE_DIR = os.path.join(_support.KIT_DIR, "example")
AWS_ENV = {"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing"}


def have_boto3():
    return importlib.util.find_spec("boto3") is not None


def load_app(directory, name):
    """Import app.py from directory as a fresh module, with the handler's environment set."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(directory, "app.py"))
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, dict(_support.good_env(), **AWS_ENV)):
        spec.loader.exec_module(module)
    return module


def capability_requests():
    """Each capability fixture's pair, request body (restamped to expire in R) and allowed outcomes."""
    caps = _support.load_json(_support.SCHEMA_DIR, "erasure-capability-fixtures.json")
    r = _support.constants_json()["expiryPeriodSeconds"]
    expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=r)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    for pair in caps["pairs"]:
        request = dict(pair["request"], expiresAt=expires)
        yield pair, json.dumps(request, separators=(",", ":"))


@unittest.skipUnless(have_boto3(), "boto3 is not installed (Lambda provides it)")
class ExampleApp(unittest.TestCase):
    def test_every_capability_pair_is_implemented(self):
        app = load_app(EXAMPLE_DIR, "example_app_under_test")
        kit = app.handler.__self__
        kit.sqs = FakeSQS()
        kit.log_stream, kit.metrics_stream = io.StringIO(), io.StringIO()
        for i, (pair, body) in enumerate(capability_requests()):
            with self.subTest(pair=pair["type"] + " " + pair["keyKind"]):
                before = len(kit.sqs.sent)
                rec = {"messageId": "c%d" % i, "body": body, "attributes": {"SenderId": "AIDAACCOUNTSERVICE"},
                       "messageAttributes": {}}
                self.assertEqual(app.handler({"Records": [rec]}, FakeContext()), {"batchItemFailures": []})
                [sent] = kit.sqs.sent[before:]
                if sent["QueueUrl"] == QUEUE_URL:  # pass one of ERASE or REFILE: deliver pass two
                    attrs = {k: {"stringValue": v["StringValue"], "dataType": v["DataType"]}
                             for k, v in sent["MessageAttributes"].items()}
                    rec = {"messageId": "p%d" % i, "body": sent["MessageBody"], "attributes": {"SenderId": SELF_SENDER},
                           "messageAttributes": attrs}
                    self.assertEqual(app.handler({"Records": [rec]}, FakeContext()), {"batchItemFailures": []})
                    sent = kit.sqs.sent[-1]
                answer = json.loads(sent["MessageBody"])
                self.assertEqual(answer["type"], pair["responseType"])
                self.assertIn(answer[pair["outcomeField"]], pair["implementedOutcomes"])

    def test_the_toy_store_really_erases(self):
        app = load_app(EXAMPLE_DIR, "example_app_under_test_2")
        self.assertTrue(app.STORE.holds("account", "acct-0001"))
        self.assertEqual(app.erase_account(_Req(key="acct-0001"), 1, None), "DONE")
        self.assertFalse(app.STORE.holds("account", "acct-0001"))
        self.assertEqual(app.refile_address(_Req(account_id="acct-0002", from_="second@example.invalid",
                                                 to="held@example.invalid"), 1, None), "NOT_MOVED")
        self.assertEqual(app.refile_address(_Req(account_id="acct-0002", from_="second@example.invalid",
                                                 to="new@example.invalid"), 1, None), "MOVED")
        self.assertEqual(app.refile_address(_Req(account_id="acct-0002", from_="second@example.invalid",
                                                 to="new@example.invalid"), 2, None), "NONE_OWNED")


class _Req:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@unittest.skipUnless(have_boto3(), "boto3 is not installed (Lambda provides it)")
@unittest.skipIf(os.environ.get("ERASURE_KIT_SKIP_BUILD") == "1", "ERASURE_KIT_SKIP_BUILD=1")
class DeployDirectory(unittest.TestCase):
    def test_build_sh_makes_a_directory_lambda_runs(self):
        with tempfile.TemporaryDirectory() as dest:
            subprocess.run(["bash", os.path.join(EXAMPLE_DIR, "build.sh"), dest], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            names = set(os.listdir(dest))
            self.assertIn("app.py", names)
            self.assertIn("erasure_channel_handler", names)
            self.assertFalse({n for n in names if n.startswith(("boto3", "botocore"))})  # Lambda provides them
            for f in ("erasure-contract.schema.json", "erasure-channel-constants.json"):
                self.assertTrue(os.path.isfile(os.path.join(dest, "erasure_channel_handler", f)), f)
            # Run it as Lambda would: the directory first on the path, handler "app.handler".
            script = (
                "import json, sys, app, erasure_channel_handler as k\n"
                "assert k.__file__.startswith(sys.argv[1]), k.__file__\n"
                "class S:\n"
                "    sent = []\n"
                "    def send_message(self, **kw): S.sent.append(kw)\n"
                "app.handler.__self__.sqs = S()\n"
                "class C:\n"
                "    def get_remaining_time_in_millis(self): return 30000\n"
                "r = app.handler({'Records': [{'messageId': 'm', 'body': sys.argv[2], 'attributes': {},"
                " 'messageAttributes': {}}]}, C())\n"
                "print(json.dumps([r, json.loads(S.sent[0]['MessageBody'])]))\n")
            pair, body = next(p for p in capability_requests() if p[0]["type"] == "erasure/CHECK")
            env = dict(os.environ, PYTHONPATH=dest, **AWS_ENV, **_support.good_env())
            out = subprocess.run([sys.executable, "-c", script, dest, body], cwd=dest, env=env, check=True,
                                 capture_output=True, text=True)
            result, answer = json.loads(out.stdout.splitlines()[-1])
            self.assertEqual(result, {"batchItemFailures": []})
            self.assertEqual(answer["answer"], "HOLDS_DATA")
            self.assertEqual(answer["subscriber"], _support.SUBSCRIBER)


if __name__ == "__main__":
    unittest.main()
