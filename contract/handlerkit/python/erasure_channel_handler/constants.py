"""The channel's constants, read from the repository's erasure-channel-constants.json.

The file is copied into the package by sync_schema.py; no number is typed
here. Every entry with a derivation is checked against it, and every bound is
checked, when the file is loaded: a file that breaks one is refused.
"""
import json
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
CONSTANTS_FILE = os.path.join(_HERE, "erasure-channel-constants.json")


class ConstantsError(Exception):
    """The constants file is missing an entry or breaks a derivation or bound."""


class Constants:
    """Every constant of the file by name (``c["passTwoDelayCapSeconds"]``),
    plus the ones the handler uses as attributes."""

    def __init__(self, values):
        self._values = dict(values)
        self.pass_two_delay_cap_seconds = self._values["passTwoDelayCapSeconds"]
        self.batch_timeout_cap_seconds = self._values["batchTimeoutCapSeconds"]
        self.handler_timeout_cap_seconds = self._values["handlerTimeoutCapSeconds"]

    def __getitem__(self, name):
        return self._values[name]


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(<=|<|\+|-|\*|\(|\)))")


def _evaluate(expr, names):
    """Evaluate an integer expression of + - * ( ) names and digits, with an
    optional chain of < and <= comparisons (then the result is a bool)."""
    tokens = []
    pos = 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ConstantsError("cannot read expression " + repr(expr))
        pos = m.end()
        if m.group(1):
            tokens.append(("num", int(m.group(1))))
        elif m.group(2):
            if m.group(2) not in names:
                raise ConstantsError("unknown name " + m.group(2) + " in " + repr(expr))
            tokens.append(("num", names[m.group(2)]))
        else:
            tokens.append(("op", m.group(3)))
    tokens.append(("end", None))
    at = [0]

    def peek():
        return tokens[at[0]]

    def take():
        t = tokens[at[0]]
        at[0] += 1
        return t

    def atom():
        kind, v = take()
        if kind == "num":
            return v
        if (kind, v) == ("op", "("):
            r = sum_()
            if take() != ("op", ")"):
                raise ConstantsError("unbalanced ( in " + repr(expr))
            return r
        raise ConstantsError("unexpected token in " + repr(expr))

    def product():
        r = atom()
        while peek() == ("op", "*"):
            take()
            r *= atom()
        return r

    def sum_():
        r = product()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            r = r + product() if op == "+" else r - product()
        return r

    left = sum_()
    result = None
    while peek() in (("op", "<"), ("op", "<=")):
        op = take()[1]
        right = sum_()
        ok = left < right if op == "<" else left <= right
        result = ok if result is None else (result and ok)
        left = right
    if peek()[0] != "end":
        raise ConstantsError("trailing tokens in " + repr(expr))
    return left if result is None else result


def load_constants(path=CONSTANTS_FILE):
    """Read the constants file, check every derivation and bound, and return
    Constants. Raises ConstantsError on a broken file."""
    try:
        with open(path, "rb") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(path + " is missing: run contract/handlerkit/python/sync_schema.py") from None
    entries = dict(doc.get("awsLimits", {}))
    entries.update(doc["constants"])
    names = {}
    for name, entry in entries.items():
        value = entry["value"]
        if type(value) is not int:
            raise ConstantsError(name + ": value is not an integer")
        names[name] = value
        if "symbol" in entry:
            names[entry["symbol"]] = value
    for name, entry in doc["constants"].items():
        if "derivation" in entry and _evaluate(entry["derivation"], names) != entry["value"]:
            raise ConstantsError(name + ": value does not equal its derivation " + entry["derivation"])
        if "bound" in entry and _evaluate(entry["bound"], names) is not True:
            raise ConstantsError(name + ": bound does not hold: " + entry["bound"])
    return Constants({k: names[k] for k in entries})
