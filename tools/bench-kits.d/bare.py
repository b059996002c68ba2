# A bare Python handler: what a store writes without the kit, for the kit's
# cold-start and per-record figures (tools/bench-kits): the SQS client made
# at init, every record's body read, nothing failed.
import json

import boto3

SQS = boto3.client("sqs")


def handler(event, context):
    for record in event["Records"]:
        json.loads(record["body"])
    return {"batchItemFailures": []}
