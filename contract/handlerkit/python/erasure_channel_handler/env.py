"""The handler's environment, with the rules and wording of Go's contract/env.go.

A problem names the variable and the rule, never the value.
"""
from typing import NamedTuple

ENV_PASS_TWO_DELAY_SECONDS = "ERASURE_PASS_TWO_DELAY_SECONDS"
ENV_BATCH_TIMEOUT_SECONDS = "ERASURE_BATCH_TIMEOUT_SECONDS"
ENV_SUBSCRIBER = "ERASURE_SUBSCRIBER"
ENV_RESPONSE_QUEUE_URL = "ERASURE_RESPONSE_QUEUE_URL"
ENV_QUEUE_URL = "ERASURE_QUEUE_URL"
ENV_HANDLER_ROLE_ID = "ERASURE_HANDLER_ROLE_ID"
#: Set by Lambda: the function's name, the session part of its own SenderId.
ENV_FUNCTION_NAME = "AWS_LAMBDA_FUNCTION_NAME"

#: Every variable load_environment reads, in the order Go reports them.
HANDLER_ENVIRONMENT_VARIABLES = (
    ENV_PASS_TWO_DELAY_SECONDS, ENV_BATCH_TIMEOUT_SECONDS, ENV_SUBSCRIBER,
    ENV_RESPONSE_QUEUE_URL, ENV_QUEUE_URL, ENV_HANDLER_ROLE_ID,
)


class HandlerEnvironment(NamedTuple):
    """A checked handler environment."""

    pass_two_delay_seconds: int
    batch_timeout_seconds: int
    subscriber: str
    response_queue_url: str
    queue_url: str
    role_id: str
    function_name: str  # "" when AWS_LAMBDA_FUNCTION_NAME is not set

    @property
    def sender_id(self):
        """The SenderId SQS reports for this handler's own sends: "<role id>:<function name>"."""
        return self.role_id + ":" + self.function_name


class HandlerEnvironmentError(Exception):
    """Every problem of the environment: a list of (variable, problem). Its
    text is "VARIABLE: problem; ..."; it never holds a value."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("erasure handler environment: " + "; ".join(v + ": " + p for v, p in self.problems))

    def has(self, variable):
        """Whether variable has a problem."""
        return any(v == variable for v, _ in self.problems)


def _plain_seconds(s):
    """1 to 6 ASCII digits and nothing else, as an int, or None."""
    if not 1 <= len(s) <= 6 or any(not "0" <= c <= "9" for c in s):
        return None
    return int(s)


def is_subscriber_name(name):
    """1 to 64 of a-z, 0-9 and -, starting with a letter, not ending with -."""
    n = len(name)
    if n == 0 or n > 64 or not "a" <= name[0] <= "z" or name[-1] == "-":
        return False
    return all("a" <= c <= "z" or "0" <= c <= "9" or c == "-" for c in name[1:])


def is_role_id(s):
    """An IAM role's unique id: "AROA" then upper-case letters and digits, 16 to 128 characters."""
    if not 16 <= len(s) <= 128 or not s.startswith("AROA"):
        return False
    return all("A" <= c <= "Z" or "0" <= c <= "9" for c in s[4:])


def is_sender_id(s):
    """"<role id>:<session>" with exactly one colon and a non-empty session."""
    role, sep, session = s.partition(":")
    return sep == ":" and is_role_id(role) and session != "" and ":" not in session


def variable_problem(name, value, constants):
    """What is wrong with one present, non-empty value, or "" (Go's HandlerVariableProblem)."""

    def seconds(lo, hi, cap_name):
        n = _plain_seconds(value)
        if n is None:
            return "not a whole number of seconds"
        if n < lo:
            return "below the minimum of %d s" % lo
        if n > hi:
            return "above the cap of %d s (%s)" % (hi, cap_name)
        return ""

    if name == ENV_PASS_TWO_DELAY_SECONDS:
        return seconds(0, constants.pass_two_delay_cap_seconds, "passTwoDelayCapSeconds")
    if name == ENV_BATCH_TIMEOUT_SECONDS:
        cap, cap_name = constants.batch_timeout_cap_seconds, "batchTimeoutCapSeconds"
        if constants.handler_timeout_cap_seconds < cap:
            cap, cap_name = constants.handler_timeout_cap_seconds, "handlerTimeoutCapSeconds"
        return seconds(1, cap, cap_name)
    if name == ENV_SUBSCRIBER:
        if not is_subscriber_name(value):
            return "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"
    elif name in (ENV_RESPONSE_QUEUE_URL, ENV_QUEUE_URL):
        if not (value.startswith("https://") or value.startswith("http://")):
            return "not an http(s) queue URL"
    elif name == ENV_HANDLER_ROLE_ID:
        if not is_role_id(value):
            return "not an IAM role's unique id (AROA followed by upper-case letters and digits)"
    return ""


def load_environment(environ, constants, need_function_name=False):
    """Read and check the six variables (and AWS_LAMBDA_FUNCTION_NAME when
    need_function_name: a handler with a destructive pair needs its own
    SenderId). Raises HandlerEnvironmentError listing every problem."""
    problems = []
    values = {}
    for name in HANDLER_ENVIRONMENT_VARIABLES:
        raw = environ.get(name, "")
        if raw == "":
            problems.append((name, "missing"))
            continue
        p = variable_problem(name, raw, constants)
        if p:
            problems.append((name, p))
            continue
        values[name] = raw
    function_name = environ.get(ENV_FUNCTION_NAME, "")
    if need_function_name:
        if function_name == "":
            problems.append((ENV_FUNCTION_NAME, "missing (the handler's own SenderId needs it for pass two)"))
        elif ":" in function_name:
            problems.append((ENV_FUNCTION_NAME, "not a function name (it holds a colon)"))
    if problems:
        raise HandlerEnvironmentError(problems)
    return HandlerEnvironment(
        pass_two_delay_seconds=int(values[ENV_PASS_TWO_DELAY_SECONDS]),
        batch_timeout_seconds=int(values[ENV_BATCH_TIMEOUT_SECONDS]),
        subscriber=values[ENV_SUBSCRIBER],
        response_queue_url=values[ENV_RESPONSE_QUEUE_URL],
        queue_url=values[ENV_QUEUE_URL],
        role_id=values[ENV_HANDLER_ROLE_ID],
        function_name=function_name,
    )
