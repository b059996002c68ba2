"""Shared test setup: fresh schema copies, the kit on sys.path, paths and fakes."""
import io
import json
import os
import sys

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
KIT_DIR = os.path.dirname(TESTS_DIR)
REPO_DIR = os.path.normpath(os.path.join(KIT_DIR, "..", "..", ".."))
SCHEMA_DIR = os.path.join(REPO_DIR, "schema")

if KIT_DIR not in sys.path:
    sys.path.insert(0, KIT_DIR)

import sync_schema  # noqa: E402

sync_schema.sync()  # the tests always judge the repository's current schema and constants


def load_json(*parts):
    with open(os.path.join(*parts), "rb") as f:
        return json.load(f)


def constants_json():
    """The repository's constants file, as values by name."""
    doc = load_json(SCHEMA_DIR, "erasure-channel-constants.json")
    return {k: v["value"] for k, v in doc["constants"].items()}


ROLE_ID = "AROAEXAMPLEROLE0001"
FUNCTION_NAME = "erasure-handler-toy"
SELF_SENDER = ROLE_ID + ":" + FUNCTION_NAME
QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-toy"
RESPONSE_QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/222222222222/erasure-responses"
SUBSCRIBER = "toy-store"


def good_env(**overrides):
    env = {
        "ERASURE_SUBSCRIBER": SUBSCRIBER,
        "ERASURE_QUEUE_URL": QUEUE_URL,
        "ERASURE_RESPONSE_QUEUE_URL": RESPONSE_QUEUE_URL,
        "ERASURE_PASS_TWO_DELAY_SECONDS": "30",
        "ERASURE_BATCH_TIMEOUT_SECONDS": "1",
        "ERASURE_HANDLER_ROLE_ID": ROLE_ID,
        "AWS_LAMBDA_FUNCTION_NAME": FUNCTION_NAME,
    }
    env.update(overrides)
    return {k: v for k, v in env.items() if v is not None}


class SendFailed(Exception):
    """What the fake raises; its text carries personal data the kit must never log."""


class FakeSQS:
    """Records send_message calls; fails the queue URLs in fail_urls."""

    def __init__(self, fail_urls=()):
        self.sent = []
        self.fail_urls = set(fail_urls)

    def send_message(self, **kw):
        if kw["QueueUrl"] in self.fail_urls:
            raise SendFailed("could not send " + kw.get("MessageBody", ""))
        self.sent.append(kw)
        return {"MessageId": "fake-%d" % len(self.sent)}

    def to(self, url):
        return [m for m in self.sent if m["QueueUrl"] == url]


class FakeContext:
    """A Lambda context with a fixed remaining time."""

    def __init__(self, remaining_ms=30000):
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self):
        return self.remaining_ms


class Capture:
    """Log and metric streams for one handler."""

    def __init__(self):
        self.log = io.StringIO()
        self.metrics = io.StringIO()

    def log_lines(self):
        return [json.loads(line) for line in self.log.getvalue().splitlines()]

    def metric_lines(self):
        return [json.loads(line) for line in self.metrics.getvalue().splitlines()]
