"""moto in server mode, with what the erasure channel's templates need from a CloudFormation engine.

The machine image ships moto (server mode, with a CloudFormation engine) under its Python. On its own it
reports CREATE_COMPLETE while skipping subscriptions, policies and alarms, and `cdk deploy` against it fails
(see ../../README.md, "Deploying offline"). This module starts moto after bridging exactly those gaps:

* CloudFormation models for the resource types moto cannot create (SNS::Subscription, SNS::TopicPolicy,
  SQS::QueuePolicy, S3::BucketPolicy, CloudWatch::Alarm), made through moto's own service backends; bucket
  versioning, lifecycle and public access block applied; key policies stored as the JSON KMS returns.
* A resource type no model creates fails its stack with CloudFormation's own words, instead of a silent
  CREATE_COMPLETE; so does any error while creating or updating a resource (ROLLBACK_COMPLETE /
  UPDATE_ROLLBACK_COMPLETE, the reason on the stack and its events).
* Change sets as the CDK CLI uses them: looked up by stack and name, outputs and exports built on execute,
  the region's exports visible to a CREATE, SSM-typed parameters kept as their names for UsePreviousValue.
* TemplateURL on an IP endpoint, and bucket policies stored but not enforced (moto enforces no resource policy;
  the project's access matrix is the authority on who may do what).
* SQS as AWS runs it across accounts: a call is routed by the account in its QueueUrl, SNS delivers to the
  account in the queue's ARN, and SenderId is the caller's identity (`<role id>:<session>` for an assumed role).
* Event source mappings are created as deployed (Enabled stays Enabled) but moto does not invoke them (it
  would need Docker): the deploy-local poller plays them, as Lambda's poller would.

It is written against one moto version and refuses any other: the bridges reach into moto's internals.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
import uuid
from urllib.parse import urlparse

PINNED_MOTO = "5.2.1"


def _require_pinned_moto() -> None:
    try:
        import moto
    except ImportError:
        sys.stderr.write(
            "erasure-moto: moto is not installed for %s. The deploy needs moto %s with its server extras "
            "(pip install 'moto[server]==%s'); this machine image ships it.\n" % (sys.executable, PINNED_MOTO, PINNED_MOTO)
        )
        sys.exit(3)
    if moto.__version__ != PINNED_MOTO:
        sys.stderr.write(
            "erasure-moto: moto %s is installed, this bridge is written against moto %s and patches its internals: "
            "install moto[server]==%s or port tools/moto/erasure_moto.py.\n" % (moto.__version__, PINNED_MOTO, PINNED_MOTO)
        )
        sys.exit(3)


_require_pinned_moto()
if sys.argv[1:] == ["--version-check"]:
    sys.exit(0)

from moto.cloudformation import models as cfn_models  # noqa: E402
from moto.cloudformation import parsing as cfn_parsing  # noqa: E402
from moto.cloudformation import responses as cfn_responses  # noqa: E402
from moto.cloudformation import utils as cfn_utils  # noqa: E402
from moto.cloudformation import exceptions as cfn_exceptions  # noqa: E402
from moto.cloudformation.exceptions import ValidationError  # noqa: E402
from moto.cloudwatch.models import cloudwatch_backends  # noqa: E402
from moto.core.common_models import CloudFormationModel  # noqa: E402
from moto.iam.models import get_account_id_from  # noqa: E402
from moto.kms import models as kms_models  # noqa: E402
from moto.s3 import models as s3_models  # noqa: E402
from moto.s3.models import s3_backends  # noqa: E402
from moto.sns import models as sns_models  # noqa: E402
from moto.sns.models import sns_backends  # noqa: E402
from moto.sqs import models as sqs_models  # noqa: E402
from moto.sqs import responses as sqs_responses  # noqa: E402
from moto.sqs.models import sqs_backends  # noqa: E402
from moto.sts.models import sts_backends  # noqa: E402
from moto.utilities.utils import get_partition  # noqa: E402


class ChangeSetNotFound(cfn_exceptions.CloudFormationError):
    """CloudFormation's answer for a change set that is not there (the CLI waits for it after a delete)."""

    code = "ChangeSetNotFound"

    def __init__(self, name: str):
        super().__init__("ChangeSet [%s] does not exist" % name)
        self.status_code = 404


class EngineError(Exception):
    """A resource CloudFormation would fail to create: the stack rolls back with this reason."""


# ---------------------------------------------------------------- ARNs and URLs


def _arn_parts(arn: str) -> tuple[str, str, str]:
    """(region, account, resource) of an ARN."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn":
        raise EngineError("Invalid ARN %r" % arn)
    return parts[3], parts[4], parts[5]


def _queue_from_url(url: str) -> tuple[str, str]:
    """(account, queue name) of an SQS queue URL."""
    path = urlparse(url).path.strip("/").split("/")
    if len(path) != 2 or not path[0].isdigit():
        raise EngineError("Invalid queue URL: it must end in /<account>/<queue name>")
    return path[0], path[1]


def _policy_json(doc) -> str:
    return doc if isinstance(doc, str) else json.dumps(doc)


# ---------------------------------------------------------------- the missing CloudFormation models

_MOTO_MODULE = "moto.cloudformation.erasure_bridge"


class _Model:
    """A resource moto keeps no object for: the shim remembers its properties and physical id. Each model
    names CloudFormationModel as a direct base: moto's registry is CloudFormationModel.__subclasses__()."""


    def __init__(self, physical_id: str, properties: dict, account_id: str, region: str):
        self._physical_id = physical_id
        self.properties = properties
        self.account_id = account_id
        self.region = region

    @property
    def physical_resource_id(self) -> str:
        return self._physical_id

    @staticmethod
    def cloudformation_name_type() -> str:
        return ""

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return False

    @classmethod
    def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name):
        original_resource._remove()
        return cls.create_from_cloudformation_json(new_resource_name, cloudformation_json, account_id, region_name)

    @classmethod
    def delete_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name):
        pass  # moto calls delete on the resource object through the resource map

    def delete(self, account_id: str, region_name: str) -> None:
        self._remove()

    def _remove(self) -> None:
        pass


class SnsSubscription(_Model, CloudFormationModel):
    __module__ = _MOTO_MODULE  # moto files models by the service in their module path

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SNS::Subscription"

    _ATTRIBUTES = ("RawMessageDelivery", "FilterPolicy", "FilterPolicyScope", "RedrivePolicy", "DeliveryPolicy",
                   "SubscriptionRoleArn")

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        p = cloudformation_json["Properties"]
        for required in ("TopicArn", "Protocol"):
            if required not in p:
                raise EngineError("Property %s cannot be empty." % required)
        topic_region, topic_account, _ = _arn_parts(p["TopicArn"])
        if p.get("Region") and p["Region"] != topic_region:
            raise EngineError("Invalid parameter: TopicArn (the subscription's Region %s is not the topic's)" % p["Region"])
        backend = sns_backends[topic_account][topic_region]
        sub = backend.subscribe(p["TopicArn"], p.get("Endpoint", ""), p["Protocol"])
        for name in cls._ATTRIBUTES:
            if name in p:
                value = p[name]
                if isinstance(value, bool):
                    value = "true" if value else "false"
                elif isinstance(value, (dict, list)):
                    value = json.dumps(value)
                backend.set_subscription_attributes(sub.arn, name, str(value))
        return cls(sub.arn, p, topic_account, topic_region)

    def _remove(self) -> None:
        try:
            sns_backends[self.account_id][self.region].unsubscribe(self._physical_id)
        except Exception:
            pass


class SnsTopicPolicy(_Model, CloudFormationModel):
    __module__ = _MOTO_MODULE  # moto files models by the service in their module path

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SNS::TopicPolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        p = cloudformation_json["Properties"]
        topics = p.get("Topics") or []
        if not topics or "PolicyDocument" not in p:
            raise EngineError("Properties Topics and PolicyDocument are required.")
        for arn in topics:
            region, account, _ = _arn_parts(arn)
            sns_backends[account][region].set_topic_attribute(arn, "Policy", _policy_json(p["PolicyDocument"]))
        return cls("%s-%s" % (resource_name, uuid.uuid4().hex[:12]), p, account_id, region_name)

    def _remove(self) -> None:
        for arn in self.properties.get("Topics") or []:
            region, account, _ = _arn_parts(arn)
            try:
                topic = sns_backends[account][region].get_topic(arn)
                topic._policy_json = topic._create_default_topic_policy(region, account, topic.name)
            except Exception:
                pass


class SqsQueuePolicy(_Model, CloudFormationModel):
    __module__ = _MOTO_MODULE  # moto files models by the service in their module path

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SQS::QueuePolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        p = cloudformation_json["Properties"]
        queues = p.get("Queues") or []
        if not queues or "PolicyDocument" not in p:
            raise EngineError("Properties Queues and PolicyDocument are required.")
        for url in queues:
            account, name = _queue_from_url(url)
            sqs_backends[account][region_name].set_queue_attributes(name, {"Policy": _policy_json(p["PolicyDocument"])})
        return cls("%s-%s" % (resource_name, uuid.uuid4().hex[:12]), p, account_id, region_name)

    def _remove(self) -> None:
        for url in self.properties.get("Queues") or []:
            try:
                account, name = _queue_from_url(url)
                sqs_backends[account][self.region].set_queue_attributes(name, {"Policy": ""})
            except Exception:
                pass


class S3BucketPolicy(_Model, CloudFormationModel):
    __module__ = _MOTO_MODULE  # moto files models by the service in their module path

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::S3::BucketPolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        p = cloudformation_json["Properties"]
        if "Bucket" not in p or "PolicyDocument" not in p:
            raise EngineError("Properties Bucket and PolicyDocument are required.")
        s3_backends[account_id][get_partition(region_name)].put_bucket_policy(
            p["Bucket"], _policy_json(p["PolicyDocument"]).encode())
        return cls(p["Bucket"], p, account_id, region_name)

    def _remove(self) -> None:
        try:
            s3_backends[self.account_id][get_partition(self.region)].delete_bucket_policy(self.properties["Bucket"])
        except Exception:
            pass


class CloudWatchAlarm(_Model, CloudFormationModel):
    __module__ = _MOTO_MODULE  # moto files models by the service in their module path

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::CloudWatch::Alarm"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "AlarmName"

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return attr == "Arn"

    def get_cfn_attribute(self, attribute_name: str):
        if attribute_name == "Arn":
            return self.arn
        from moto.cloudformation.exceptions import UnformattedGetAttTemplateException
        raise UnformattedGetAttTemplateException()

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        p = cloudformation_json["Properties"]
        for required in ("ComparisonOperator", "EvaluationPeriods"):
            if required not in p:
                raise EngineError("Property %s cannot be empty." % required)
        name = p.get("AlarmName") or resource_name
        alarm = cloudwatch_backends[account_id][region_name].put_metric_alarm(
            name=name,
            namespace=p.get("Namespace"),
            metric_name=p.get("MetricName"),
            comparison_operator=p["ComparisonOperator"],
            evaluation_periods=int(p["EvaluationPeriods"]),
            period=int(p["Period"]) if "Period" in p else None,
            threshold=float(p["Threshold"]) if "Threshold" in p else None,
            statistic=p.get("Statistic"),
            description=p.get("AlarmDescription"),
            dimensions=[{"Name": d["Name"], "Value": d["Value"]} for d in p.get("Dimensions", [])],
            alarm_actions=p.get("AlarmActions", []),
            ok_actions=p.get("OKActions", []),
            insufficient_data_actions=p.get("InsufficientDataActions", []),
            datapoints_to_alarm=int(p["DatapointsToAlarm"]) if "DatapointsToAlarm" in p else None,
            extended_statistic=p.get("ExtendedStatistic"),
            unit=p.get("Unit"),
            actions_enabled=str(p.get("ActionsEnabled", True)).lower() == "true",
            treat_missing_data=p.get("TreatMissingData"),
            threshold_metric_id=p.get("ThresholdMetricId"),
        )
        model = cls(name, p, account_id, region_name)
        model.arn = alarm.alarm_arn
        return model

    def _remove(self) -> None:
        try:
            cloudwatch_backends[self.account_id][self.region].delete_alarms([self._physical_id])
        except Exception:
            pass


class SecretsManagerSecret(_Model, CloudFormationModel):
    """AWS::SecretsManager::Secret: a secret with its SecretString or one GenerateSecretString makes."""

    __module__ = _MOTO_MODULE

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SecretsManager::Secret"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "Name"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        from moto.secretsmanager.models import secretsmanager_backends

        p = cloudformation_json["Properties"]
        backend = secretsmanager_backends[account_id][region_name]
        value = p.get("SecretString")
        gen = p.get("GenerateSecretString")
        if value is not None and gen is not None:
            raise EngineError("SecretString and GenerateSecretString cannot both be set.")
        if gen is not None:
            value = backend.get_random_password(
                password_length=int(gen.get("PasswordLength", 32)), exclude_characters=gen.get("ExcludeCharacters", ""),
                exclude_numbers=bool(gen.get("ExcludeNumbers", False)), exclude_punctuation=bool(gen.get("ExcludePunctuation", False)),
                exclude_uppercase=bool(gen.get("ExcludeUppercase", False)), exclude_lowercase=bool(gen.get("ExcludeLowercase", False)),
                include_space=bool(gen.get("IncludeSpace", False)), require_each_included_type=bool(gen.get("RequireEachIncludedType", True)))
            value = json.loads(value)["RandomPassword"] if value.startswith("{") else value
            if gen.get("SecretStringTemplate") and gen.get("GenerateStringKey"):
                doc = json.loads(gen["SecretStringTemplate"])
                doc[gen["GenerateStringKey"]] = value
                value = json.dumps(doc)
        name = p.get("Name") or resource_name
        out = backend.create_secret(name=name, secret_string=value, secret_binary=None, description=p.get("Description"),
                                    tags=p.get("Tags", []), kms_key_id=p.get("KmsKeyId"), client_request_token=None,
                                    replica_regions=[], force_overwrite=False)
        arn = json.loads(out)["ARN"] if isinstance(out, str) else out["ARN"]
        return cls(arn, p, account_id, region_name)

    def _remove(self) -> None:
        from moto.secretsmanager.models import secretsmanager_backends

        try:
            secretsmanager_backends[self.account_id][self.region].delete_secret(self._physical_id, None, True)
        except Exception:
            pass


class CdkMetadata(_Model, CloudFormationModel):
    """AWS::CDK::Metadata: CloudFormation records it (the CDK's version reporting) and creates nothing."""

    __module__ = _MOTO_MODULE

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::CDK::Metadata"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        return cls(resource_name, cloudformation_json.get("Properties", {}), account_id, region_name)


# The model registry is cached: register before anything reads it.
cfn_parsing.get_model_list.cache_clear()
cfn_parsing.get_model_map.cache_clear()


# ---------------------------------------------------------------- resources moto creates only in part


_bucket_create = s3_models.FakeBucket.create_from_cloudformation_json.__func__


def _cfn_lifecycle_rule(rule: dict) -> dict:
    """A CloudFormation lifecycle rule in the shape S3's API (and moto's set_lifecycle) takes."""
    out: dict = {"ID": rule.get("Id"), "Status": rule.get("Status", "Enabled")}
    out["Filter"] = {"Prefix": rule.get("Prefix", "")}
    if "ExpirationInDays" in rule or "ExpirationDate" in rule or "ExpiredObjectDeleteMarker" in rule:
        exp = {}
        if "ExpirationInDays" in rule:
            exp["Days"] = rule["ExpirationInDays"]
        if "ExpirationDate" in rule:
            exp["Date"] = rule["ExpirationDate"]
        if "ExpiredObjectDeleteMarker" in rule:
            exp["ExpiredObjectDeleteMarker"] = str(rule["ExpiredObjectDeleteMarker"]).lower()
        out["Expiration"] = exp
    nve = rule.get("NoncurrentVersionExpiration")
    if nve is None and "NoncurrentVersionExpirationInDays" in rule:
        nve = {"NoncurrentDays": rule["NoncurrentVersionExpirationInDays"]}
    if nve is not None:
        out["NoncurrentVersionExpiration"] = {"NoncurrentDays": nve.get("NoncurrentDays")}
    if "AbortIncompleteMultipartUpload" in rule:
        out["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"]}
    return out


def _apply_bucket_configuration(bucket, properties: dict, account_id: str, region_name: str) -> None:
    backend = s3_backends[account_id][get_partition(region_name)]
    versioning = properties.get("VersioningConfiguration")
    if versioning:
        backend.put_bucket_versioning(bucket.name, versioning["Status"])
    lifecycle = properties.get("LifecycleConfiguration")
    if lifecycle:
        backend.put_bucket_lifecycle_configuration(bucket.name, [_cfn_lifecycle_rule(r) for r in lifecycle.get("Rules", [])])
    block = properties.get("PublicAccessBlockConfiguration")
    if block:
        backend.put_public_access_block(bucket.name, {k: str(v).lower() for k, v in block.items()})
    # Object Lock (the ledger's anchor): moto's CloudFormation model drops it, its S3 API enforces it (a locked
    # version cannot be deleted; a write needs a checksum). Set as CreateBucket with ObjectLockEnabled does.
    if str(properties.get("ObjectLockEnabled", "")).lower() == "true":
        backend.put_bucket_versioning(bucket.name, "Enabled")
        bucket.object_lock_enabled = True
        retention = (properties.get("ObjectLockConfiguration") or {}).get("Rule", {}).get("DefaultRetention", {})
        bucket.default_lock_mode = retention.get("Mode")
        bucket.default_lock_days = int(retention.get("Days", 0))
        bucket.default_lock_years = int(retention.get("Years", 0))


def _bucket_create_complete(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
    bucket = _bucket_create(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs)
    _apply_bucket_configuration(bucket, cloudformation_json.get("Properties", {}), account_id, region_name)
    return bucket


s3_models.FakeBucket.create_from_cloudformation_json = classmethod(_bucket_create_complete)

_bucket_update = s3_models.FakeBucket.update_from_cloudformation_json.__func__


def _bucket_update_complete(cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name):
    bucket = _bucket_update(cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name)
    _apply_bucket_configuration(bucket, cloudformation_json.get("Properties", {}), account_id, region_name)
    return bucket


s3_models.FakeBucket.update_from_cloudformation_json = classmethod(_bucket_update_complete)

# Bucket policies are stored (GetBucketPolicy returns them) but not enforced, like every other resource policy
# on moto: moto reads a Condition it cannot evaluate as a Deny, which refuses the CDK's own asset uploads.
s3_models.FakeBucket.get_permission = lambda self, action, resource: __import__(
    "moto.iam.access_control", fromlist=["PermissionResult"]).PermissionResult.NEUTRAL

_key_create = kms_models.Key.create_from_cloudformation_json.__func__


def _key_create_with_json_policy(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
    props = cloudformation_json.get("Properties", {})
    if isinstance(props.get("KeyPolicy"), (dict, list)):
        props["KeyPolicy"] = json.dumps(props["KeyPolicy"])
    return _key_create(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs)


kms_models.Key.create_from_cloudformation_json = classmethod(_key_create_with_json_policy)


# ---------------------------------------------------------------- failing instead of skipping


_parse_resource = cfn_parsing.parse_resource


def _parse_resource_or_fail(resource_json, resources_map):
    resource_type = resource_json["Type"]
    if resource_type not in cfn_parsing.NULL_MODELS and not cfn_parsing.resource_class_from_type(resource_type):
        raise EngineError("Template format error: Unrecognized resource types: [%s]" % resource_type)
    return _parse_resource(resource_json, resources_map)


cfn_parsing.parse_resource = _parse_resource_or_fail

_parse_ssm = cfn_parsing.ResourceMap.parse_ssm_parameter


def _parse_ssm_or_fail(self, value, value_type):
    try:
        return _parse_ssm(self, value, value_type)
    except Exception:
        raise EngineError("Parameters: [%s] referenced by template do not exist in SSM" % value)


cfn_parsing.ResourceMap.parse_ssm_parameter = _parse_ssm_or_fail


_parse_and_update = cfn_parsing.parse_and_update_resource
_parse_and_create = cfn_parsing.parse_and_create_resource
_created_as: dict = {}  # (stack id, logical id) -> the resource's template JSON when created


def _canonical(resource_json) -> str:
    return json.dumps(resource_json, sort_keys=True, default=str)


def _create_recording(logical_id, resource_json, resources_map, account_id, region_name):
    as_written = _canonical(resource_json)  # before moto's parse mutates it
    resource = _parse_and_create(logical_id, resource_json, resources_map, account_id, region_name)
    _created_as[(resources_map.stack_id, logical_id)] = as_written
    return resource


cfn_parsing.parse_and_create_resource = _create_recording


def _update_or_replace(logical_id, resource_json, resources_map, account_id, region_name):
    """An update of a type moto cannot update in place replaces the resource (delete, then create), as
    CloudFormation does for a change that requires replacement; moto alone would record None and fail every
    later reference to it."""
    if _created_as.get((resources_map.stack_id, logical_id)) == _canonical(resource_json):
        # The template did not change it (moto's own diff saw its parsed copy): CloudFormation leaves it be.
        return resources_map._parsed_resources.get(logical_id)
    resource = _parse_and_update(logical_id, resource_json, resources_map, account_id, region_name)
    if resource is not None:
        _created_as[(resources_map.stack_id, logical_id)] = _canonical(resource_json)
        return resource
    resource_type = resource_json["Type"]
    original = resources_map._parsed_resources.get(logical_id)
    if original is not None:
        try:
            if hasattr(original, "delete"):
                original.delete(account_id, region_name)
            else:
                cfn_parsing.resource_class_from_type(resource_type).delete_from_cloudformation_json(
                    original.physical_resource_id, resource_json, account_id, region_name)
        except Exception as err:
            raise EngineError("%s %s could not be replaced: %s" % (resource_type, logical_id, _reason(err)))
    replacement = _create_recording(logical_id, resource_json, resources_map, account_id, region_name)
    if replacement is None:
        raise EngineError("%s %s could not be updated" % (resource_type, logical_id))
    return replacement


cfn_parsing.parse_and_update_resource = _update_or_replace


def _reason(err: Exception) -> str:
    if isinstance(err, EngineError):
        return str(err)
    msg = getattr(err, "message", None) or str(err) or type(err).__name__
    return "%s: %s" % (type(err).__name__, msg)


def _fail_stack(stack, operation: str, err: Exception) -> None:
    reason = _reason(err)
    failed = "CREATE_FAILED" if operation == "CREATE" else "UPDATE_FAILED"
    final = "ROLLBACK_COMPLETE" if operation == "CREATE" else "UPDATE_ROLLBACK_COMPLETE"
    stack._add_stack_event(failed, resource_status_reason=reason)
    stack._add_stack_event(final, resource_status_reason=reason)
    stack.status = final
    stack.stack_status_reason = reason
    stack.output_map = cfn_parsing.OutputMap(stack.resource_map, {}, stack.stack_id)  # a failed stack has none
    if not isinstance(err, EngineError):
        traceback.print_exception(err, file=sys.stderr)
    sys.stderr.write("erasure-moto: stack %s: %s: %s\n" % (stack.name, failed, reason))


# ---------------------------------------------------------------- change sets as the CDK CLI uses them


def _find_change_set(backend, change_set_name: str, stack_name: str | None):
    if change_set_name in backend.change_sets:
        return backend.change_sets[change_set_name]
    for cs in reversed(list(backend.change_sets.values())):  # the latest of that name
        if cs.change_set_name == change_set_name and stack_name in (None, "", cs.stack_name, cs.stack_id):
            return cs
    return None


def _describe_change_set(self, change_set_name, stack_name=None):
    cs = _find_change_set(self, change_set_name, stack_name)
    if cs is None:
        raise ChangeSetNotFound(change_set_name)
    return cs


def _delete_change_set(self, change_set_name, stack_name=None):
    # Deleting a change set that is not there succeeds, as CloudFormation's does: the CLI cleans up before
    # every deploy.
    cs = _find_change_set(self, change_set_name, stack_name)
    if cs is not None:
        del self.change_sets[cs.change_set_id]


def _register_exports(backend, stack) -> None:
    for name in [n for n, e in backend.exports.items() if e.exporting_stack_id == stack.stack_id]:
        del backend.exports[name]
    backend._validate_export_uniqueness(stack)
    for export in stack.exports:
        backend.exports[export.name] = export


def _execute_change_set(self, change_set_name, stack_name=None):
    cs = _find_change_set(self, change_set_name, stack_name)
    if cs is None:
        raise ChangeSetNotFound(change_set_name)
    stack = self.stacks[cs.stack_id]
    operation = cs.change_set_type
    cs.execution_status = "EXECUTE_COMPLETE"
    try:
        if operation == "CREATE":
            stack.template = cs.template
            stack._parse_template()
            stack.parameters = cs.parameters
            stack.description = stack.template_dict.get("Description")
            stack.cross_stack_resources = self.exports
            stack._add_stack_event("CREATE_IN_PROGRESS", resource_status_reason="User Initiated")
            stack.resource_map = stack._create_resource_map()
            stack.output_map = stack._create_output_map()
            stack.create_resources()
            stack.status = "CREATE_COMPLETE"
        else:
            stack.update(cs.template, role_arn=cs.role_arn, parameters=cs.parameters, tags=cs.tags)
        _register_exports(self, stack)
        stack.raw_parameters = dict(cs.raw_parameters)
    except Exception as err:  # a failed resource fails the stack, with its reason, as CloudFormation does
        _fail_stack(stack, operation, err)


cfn_models.CloudFormationBackend.describe_change_set = _describe_change_set
cfn_models.CloudFormationBackend.delete_change_set = _delete_change_set
cfn_models.CloudFormationBackend.execute_change_set = _execute_change_set

_create_stack = cfn_models.CloudFormationBackend.create_stack


def _create_stack_or_fail(self, name, template, parameters, *args, **kwargs):
    try:
        stack = _create_stack(self, name, template, parameters, *args, **kwargs)
    except EngineError as err:
        raise ValidationError(name, message=str(err))
    stack.raw_parameters = dict(parameters)
    return stack


cfn_models.CloudFormationBackend.create_stack = _create_stack_or_fail

_create_change_set = cfn_models.CloudFormationBackend.create_change_set


def _create_change_set_recording(self, stack_name, change_set_name, template, parameters, *args, **kwargs):
    # A CREATE change set of a stack that exists is CloudFormation's AlreadyExists; one whose stack was
    # rolled back replaces it, as `cdk deploy` expects after deleting the failed stack.
    raw = dict(parameters)
    try:
        cs_id, stack_id = _create_change_set(self, stack_name, change_set_name, template, parameters, *args, **kwargs)
    except EngineError as err:
        raise ValidationError(stack_name, message=str(err))
    self.change_sets[cs_id].raw_parameters = raw
    return cs_id, stack_id


cfn_models.CloudFormationBackend.create_change_set = _create_change_set_recording


def _stack_parameters(self):
    """The parameters as given (an SSM-typed one by its parameter name), which UsePreviousValue re-reads."""
    resolved = self.resource_map.resolved_parameters
    raw = getattr(self, "raw_parameters", None) or {}
    out = {}
    for key, value in resolved.items():
        slot = self.template_dict.get("Parameters", {}).get(key, {})
        if key in raw:
            out[key] = raw[key]
        elif str(slot.get("Type", "")).startswith("AWS::SSM::Parameter::") and "Default" in slot:
            out[key] = slot["Default"]
        else:
            out[key] = value
    return out


cfn_models.Stack.stack_parameters = property(_stack_parameters)


def _describe_change_set_response(self):
    cs = self.cloudformation_backend.describe_change_set(
        change_set_name=self._get_param("ChangeSetName"), stack_name=self._get_param("StackName"))
    return cfn_responses.ActionResult(cs)


def _delete_change_set_response(self):
    self.cloudformation_backend.delete_change_set(
        change_set_name=self._get_param("ChangeSetName"), stack_name=self._get_param("StackName"))
    return cfn_responses.EmptyResult()


cfn_responses.CloudFormationResponse.describe_change_set = _describe_change_set_response
cfn_responses.CloudFormationResponse.delete_change_set = _delete_change_set_response


def _stack_from_s3_url(template_url: str, account_id: str, partition: str) -> str:
    """TemplateURL as the CLI builds it from an endpoint such as http://127.0.0.1:5055/<bucket>/<key>."""
    url = urlparse(template_url)
    host = url.hostname or ""
    if host.replace(".", "").isdigit() or host == "localhost" or (host.startswith("s3") and host.endswith("amazonaws.com")):
        bucket, key = url.path.lstrip("/").split("/", 1)
    else:
        bucket, key = host.split(".")[0], url.path.lstrip("/")
    obj = s3_backends[account_id][partition].get_object(bucket, key)
    return obj.value.decode("utf-8")


cfn_utils.get_stack_from_s3_url = _stack_from_s3_url
cfn_models.get_stack_from_s3_url = _stack_from_s3_url
cfn_responses.get_stack_from_s3_url = _stack_from_s3_url


# ---------------------------------------------------------------- SQS across accounts, and SenderId


_caller = threading.local()


def _sqs_backend(self):
    url = self._get_param("QueueUrl")
    if url:
        try:
            account, _ = _queue_from_url(url)
            return sqs_backends[account][self.region]
        except EngineError:
            pass
    return sqs_backends[self.current_account][self.region]


sqs_responses.SQSResponse.sqs_backend = property(_sqs_backend)

_sqs_dispatch = sqs_responses.SQSResponse.call_action


def _sender_id(access_key: str) -> str | None:
    account = get_account_id_from(access_key)
    for partition_backend in sts_backends[account].values():
        role = partition_backend.get_assumed_role_from_access_key(access_key)
        if role is not None:
            return role.user_id
    return None


def _sqs_call_action(self):
    _caller.sender_id = _sender_id(self.get_access_key())
    try:
        return _sqs_dispatch(self)
    finally:
        _caller.sender_id = None


sqs_responses.SQSResponse.call_action = _sqs_call_action

_message_init = sqs_models.Message.__init__


def _message_init_with_sender(self, *args, **kwargs):
    _message_init(self, *args, **kwargs)
    sender = getattr(_caller, "sender_id", None)
    if sender:
        self.sender_id = sender


sqs_models.Message.__init__ = _message_init_with_sender


class _BackendsByQueueAccount:
    """sqs_backends as SNS's delivery sees it: the queue's account, from the subscription's endpoint."""

    def __getitem__(self, account):
        return sqs_backends[getattr(_caller, "delivery_account", None) or account]


sns_models.sqs_backends = _BackendsByQueueAccount()
_subscription_publish = sns_models.Subscription.publish


def _publish_to_queue_account(self, *args, **kwargs):
    sender = getattr(_caller, "sender_id", None)
    _caller.sender_id = None  # SNS delivers: the message's sender is SNS, not the publisher
    if self.protocol == "sqs":
        _caller.delivery_account = self.endpoint.split(":")[4]
    try:
        return _subscription_publish(self, *args, **kwargs)
    finally:
        _caller.delivery_account = None
        _caller.sender_id = sender


sns_models.Subscription.publish = _publish_to_queue_account


def _publish_to_every_subscription(self, message, subject=None, message_attributes=None, group_id=None,
                                   deduplication_id=None, message_structure=None):
    """Topic.publish of moto 5.2.1, delivering to every subscription: moto's own takes only the first page of
    list_subscriptions_by_topic (100), so a topic of more than 100 stores left the rest without their requests."""
    message_id = str(sns_models.mock_random.uuid4())
    for subscription in self.sns_backend._get_topic_subscriptions(self):
        subscription.publish(message, message_id, subject=subject, message_attributes=message_attributes,
                             group_id=group_id, deduplication_id=deduplication_id, message_structure=message_structure)
    self.sent_notifications.append((message_id, message, subject, message_attributes, group_id))
    return message_id


sns_models.Topic.publish = _publish_to_every_subscription

# moto would invoke a mapping's function itself on each arrival (in Docker), consuming a receive: the mapping
# stays as deployed, and the deploy-local poller plays it.
if os.environ.get("ERASURE_MOTO_INVOKE_MAPPINGS") != "1":
    _queue_init = sqs_models.Queue.__init__

    class _NoMappings(dict):
        def __setitem__(self, key, value):
            pass  # recorded on the mapping itself; moto's own invocation is off

    def _queue_init_without_mappings(self, *args, **kwargs):
        _queue_init(self, *args, **kwargs)
        self.lambda_event_source_mappings = _NoMappings()

    sqs_models.Queue.__init__ = _queue_init_without_mappings


def main() -> None:
    from moto.server import main as moto_main

    moto_main(sys.argv[1:])


if __name__ == "__main__":
    main()
