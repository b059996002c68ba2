"""The contract's messages: the strict wire profile, the schema, requests and answers.

The same verdicts as Go's contract.Validate and contract.ParseRequest
(schema/fixtures/manifest.json is the shared proof):

- NOT_JSON: not valid UTF-8, a byte order mark, or not exactly one RFC 8259 JSON text;
- INVALID_MESSAGE: a JSON text that is not an object, breaks the profile
  (duplicate member names, lone surrogate escapes, numbers not written as plain
  digits) or breaks erasure-contract.schema.json;
- NOT_A_REQUEST: a valid response given to parse_request.

Syntax is judged first: a body that breaks both the syntax and the profile is NOT_JSON.
"""
import datetime
import json
import re
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from .schema import load_schema

CODE_NOT_JSON = "NOT_JSON"
CODE_INVALID_MESSAGE = "INVALID_MESSAGE"
CODE_NOT_A_REQUEST = "NOT_A_REQUEST"

ERASE = "erasure/ERASE"
REFILE = "erasure/REFILE"
CLASSIFY = "erasure/CLASSIFY"
CHECK = "erasure/CHECK"
ACK = "erasure/ACK"
REFILE_ACK = "erasure/REFILE_ACK"
HOLDINGS = "erasure/HOLDINGS"

ACCOUNT = "ACCOUNT"
ADDRESS = "ADDRESS"

NOT_APPLICABLE = "NOT_APPLICABLE"

REQUEST_TYPES = (ERASE, REFILE, CLASSIFY, CHECK)
DESTRUCTIVE_TYPES = (ERASE, REFILE)
RESPONSE_TYPE = {ERASE: ACK, REFILE: REFILE_ACK, CLASSIFY: HOLDINGS, CHECK: HOLDINGS}


class ContractError(ValueError):
    """A message the contract refuses. str() is the code alone, so it never
    carries a body, key or requestId."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Pair(NamedTuple):
    """A (type, key kind) pair a store may implement. A plain tuple
    ("erasure/ERASE", "ACCOUNT") works wherever a Pair does."""

    type: str
    key_kind: str


#: The pairs a store can implement: every request type with either key kind,
#: except REFILE, which has only ADDRESS.
IMPLEMENTABLE_PAIRS = frozenset(
    Pair(t, k) for t in REQUEST_TYPES for k in (ACCOUNT, ADDRESS) if not (t == REFILE and k == ACCOUNT))


@dataclass(frozen=True)
class Request:
    """A valid request. send_no is None for CLASSIFY and CHECK; key is None for
    REFILE; account_id, from_ and to are set for REFILE only. expires_at is
    UTC, to the microsecond (the wire may carry nanoseconds: expired() uses them)."""

    type: str
    request_id: str
    send_no: Optional[int]
    expires_at: datetime.datetime
    key_kind: str
    key: Optional[str] = None
    account_id: Optional[str] = None
    from_: Optional[str] = None
    to: Optional[str] = None
    expires_at_ns: int = field(default=0, repr=False)

    @property
    def pair(self):
        """The request's (type, key kind) pair."""
        return Pair(self.type, self.key_kind)

    def expired(self, now_ns):
        """True when the request has expired at now_ns (nanoseconds since the
        Unix epoch, the store's own clock): from expiresAt on."""
        return now_ns >= self.expires_at_ns


# --- the wire profile -------------------------------------------------------
# json.loads does the RFC 8259 syntax; these hooks mark what the profile
# refuses, without state, so one decoder serves every call.


class _DuplicateNames(dict):
    """An object that had a member name twice."""


class _NotPlain:
    """A number not written as plain digits (a sign, fraction or exponent)."""


_NOT_PLAIN = _NotPlain()
_HUGE = 10 ** 30  # stands for any plain-digit integer past 19 digits: above every schema bound


def _pairs(pairs):
    d = dict(pairs)
    return d if len(d) == len(pairs) else _DuplicateNames(d)


def _int(lexeme):
    if lexeme[0] == "-":
        return _NOT_PLAIN
    return int(lexeme) if len(lexeme) <= 19 else _HUGE


def _refuse_constant(name):
    raise ValueError("not JSON: " + name)  # NaN, Infinity, -Infinity


_decoder = json.JSONDecoder(object_pairs_hook=_pairs, parse_int=_int,
                            parse_float=lambda s: _NOT_PLAIN, parse_constant=_refuse_constant)
_SURROGATE = re.compile("[\ud800-\udfff]")
_BOM = b"\xef\xbb\xbf"


def _syntax_ok(text):
    """An iterative RFC 8259 syntax check, used only when json.loads gives up
    on deep nesting (RecursionError): True when text is one JSON text."""
    ws = re.compile(r"[ \t\n\r]*")
    string = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*"')
    scalar = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")

    def after_name(i):
        """Past a member's name, its colon and the space after: the value's
        start, or -1."""
        m = string.match(text, i)
        if not m:
            return -1
        i = ws.match(text, m.end()).end()
        if not text.startswith(":", i):
            return -1
        return ws.match(text, i + 1).end()

    i = ws.match(text, 0).end()
    stack = []  # "{" or "["
    expect_value = True
    while True:
        if expect_value:
            if text.startswith("{", i) or text.startswith("[", i):
                stack.append(text[i])
                i = ws.match(text, i + 1).end()
                close = "}" if stack[-1] == "{" else "]"
                if text.startswith(close, i):
                    stack.pop()
                    i += 1
                    expect_value = False
                    i = ws.match(text, i).end()
                    continue
                if stack[-1] == "{":
                    i = after_name(i)
                    if i < 0:
                        return False
                continue
            m = string.match(text, i) or scalar.match(text, i)
            if not m:
                return False
            i = ws.match(text, m.end()).end()
            expect_value = False
        if not stack:
            return i == len(text)
        if text.startswith(",", i):
            i = ws.match(text, i + 1).end()
            if stack[-1] == "{":
                i = after_name(i)
                if i < 0:
                    return False
            expect_value = True
        elif text.startswith("}" if stack[-1] == "{" else "]", i):
            stack.pop()
            i = ws.match(text, i + 1).end()
        else:
            return False


def _decode(body):
    """Apply the profile to body (bytes or str) and return the top-level object,
    or raise ContractError NOT_JSON or INVALID_MESSAGE."""
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")  # a lone surrogate then fails the UTF-8 check
    elif not isinstance(body, (bytes, bytearray, memoryview)):
        raise ContractError(CODE_NOT_JSON)
    body = bytes(body)
    if body.startswith(_BOM):
        raise ContractError(CODE_NOT_JSON)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ContractError(CODE_NOT_JSON) from None
    try:
        value = _decoder.decode(text)
    except RecursionError:
        # Deeply nested: no contract field takes a nested value, so it is
        # INVALID_MESSAGE if it is JSON at all.
        raise ContractError(CODE_INVALID_MESSAGE if _syntax_ok(text) else CODE_NOT_JSON) from None
    except ValueError:
        raise ContractError(CODE_NOT_JSON) from None
    # Only the top level needs the profile: a nested value of any kind already
    # breaks the schema, which gives the same verdict.
    if type(value) is not dict:
        raise ContractError(CODE_INVALID_MESSAGE)
    for name, v in value.items():
        if _SURROGATE.search(name) or v is _NOT_PLAIN or (type(v) is str and _SURROGATE.search(v)):
            raise ContractError(CODE_INVALID_MESSAGE)
    return value


_valid = load_schema()


def validate(body):
    """Validate any contract message (bytes or str) and return its type, or
    raise ContractError NOT_JSON or INVALID_MESSAGE."""
    value = _decode(body)
    if not _valid(value):
        raise ContractError(CODE_INVALID_MESSAGE)
    return value["type"]


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (year 0 included)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_UTC = datetime.timezone.utc


def _parse_expires_at(s):
    """expiresAt (already matched by the schema's pattern) as (datetime, ns)."""
    y, mo, d = int(s[0:4]), int(s[5:7]), int(s[8:10])
    h, mi, sec = int(s[11:13]), int(s[14:16]), int(s[17:19])
    frac = s[20:-1] if s[19] == "." else ""
    nanos = int(frac.ljust(9, "0")) if frac else 0
    ns = ((_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 1000000000) + nanos
    if y >= 1:
        dt = datetime.datetime(y, mo, d, h, mi, sec, nanos // 1000, tzinfo=_UTC)
    else:
        dt = datetime.datetime.min.replace(tzinfo=_UTC)  # year 0: long expired
    return dt, ns


def parse_request(body):
    """Parse and validate a request body (ERASE, REFILE, CLASSIFY or CHECK).
    Raises ContractError NOT_JSON, INVALID_MESSAGE or NOT_A_REQUEST."""
    value = _decode(body)
    if not _valid(value):
        raise ContractError(CODE_INVALID_MESSAGE)
    t = value["type"]
    if t not in RESPONSE_TYPE:
        raise ContractError(CODE_NOT_A_REQUEST)
    dt, ns = _parse_expires_at(value["expiresAt"])
    return Request(type=t, request_id=value["requestId"], send_no=value.get("sendNo"), expires_at=dt,
                   key_kind=value["keyKind"], key=value.get("key"), account_id=value.get("accountId"),
                   from_=value.get("from"), to=value.get("to"), expires_at_ns=ns)


# --- answers -----------------------------------------------------------------


def _json_string(s):
    """s as a JSON string the way Go's encoder writes it: only " and \\ and
    control characters escaped, everything else as is."""
    out = ['"']
    for ch in s:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def answer_for(request, subscriber, outcome):
    """The answer a store named subscriber gives to request, as an ordered
    list of (name, value) members in Go's field order: ACK and REFILE_ACK
    carry requestId, sendNo, subscriber, outcome; HOLDINGS carries requestId,
    subscriber, keyKind, key, answer. It is not validated until encoded."""
    t = RESPONSE_TYPE.get(request.type)
    if t is None:
        raise ContractError(CODE_INVALID_MESSAGE)
    if t == HOLDINGS:
        return [("type", t), ("requestId", request.request_id), ("subscriber", subscriber),
                ("keyKind", request.key_kind), ("key", request.key), ("answer", outcome)]
    return [("type", t), ("requestId", request.request_id), ("sendNo", request.send_no),
            ("subscriber", subscriber), ("outcome", outcome)]


def encode_answer(members):
    """Encode an answer (answer_for's list) and validate the bytes as the
    handler would parse them. Returns the body as str, or raises
    ContractError INVALID_MESSAGE: nothing invalid is ever returned to send."""
    parts = []
    for name, value in members:
        if type(value) is int and name == "sendNo":
            parts.append(_json_string(name) + ":" + str(value))
        elif isinstance(value, str):
            parts.append(_json_string(name) + ":" + _json_string(value))
        else:
            raise ContractError(CODE_INVALID_MESSAGE)
    body = "{" + ",".join(parts) + "}"
    try:
        t = validate(body)
    except ContractError:
        raise ContractError(CODE_INVALID_MESSAGE) from None
    if t not in (ACK, REFILE_ACK, HOLDINGS):
        raise ContractError(CODE_INVALID_MESSAGE)
    return body


def outcome_field(response_type):
    """The member that carries a response type's outcome: answer for HOLDINGS."""
    return "answer" if response_type == HOLDINGS else "outcome"


__all__ = [
    "ContractError", "Pair", "Request", "validate", "parse_request", "answer_for", "encode_answer",
    "IMPLEMENTABLE_PAIRS",
]
