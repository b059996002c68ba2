"""A small JSON Schema (2020-12) validator for the keywords the contract schema uses.

It compiles the repository's erasure-contract.schema.json (copied into the
package by sync_schema.py) into closures once, at import. Like ajv in strict
mode it refuses a schema that uses a keyword it does not know, so a schema
change it cannot judge fails loudly instead of being skipped. Patterns are
ECMAScript regular expressions (u flag); a small translator maps the subset
the schema uses onto Python's re and refuses anything outside it.
"""
import json
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_FILE = os.path.join(_HERE, "erasure-contract.schema.json")

_ANNOTATIONS = frozenset(("$schema", "$id", "title", "description", "$comment", "$defs"))


class SchemaError(Exception):
    """The schema uses something this validator does not implement."""


def _json_equal(a, b):
    """JSON equality: a boolean never equals a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_SYNTAX_CHARS = "\\/^$.*+?()[]{}|-"


def translate_pattern(p):
    """Translate an ECMAScript pattern (u flag, no m flag) into an equivalent
    Python pattern, for the subset: literals, classes, groups, alternation,
    quantifiers, \\xHH and escaped syntax characters. ``$`` becomes ``\\Z``
    (Python's ``$`` would also match before a final newline). Anything else
    (``.``, ``\\d``, ``\\w``, ``\\s``, ``\\b``, lookarounds, ...) raises
    SchemaError: its meaning differs between the two engines."""
    out = []
    i, n = 0, len(p)
    in_class = False
    class_start = False
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise SchemaError("pattern ends in a backslash: " + p)
            e = p[i + 1]
            if e == "x" and _HEX2.fullmatch(p, i + 2, i + 4):
                out.append(p[i:i + 4])
                i += 4
            elif e in _SYNTAX_CHARS:
                out.append("\\" + e)
                i += 2
            else:
                raise SchemaError("unsupported escape \\" + e + " in pattern " + p)
            class_start = False
            continue
        if in_class:
            if c == "]" and not class_start:
                in_class = False
                out.append(c)
            elif c == "]" or (c == "^" and class_start and p[i + 1:i + 2] == "]"):
                raise SchemaError("empty or universal class in pattern " + p)
            elif c in "[&~|":
                out.append("\\" + c)  # literal in both; Python would warn or read a set operation
            else:
                out.append(c)
            class_start = class_start and c == "^"
            i += 1
            continue
        if c == "[":
            in_class, class_start = True, True
            out.append(c)
        elif c == "$":
            out.append(r"\Z")
        elif c == ".":
            raise SchemaError("'.' is not supported in pattern " + p)
        elif c == "(":
            if p.startswith("(?", i) and not p.startswith("(?:", i):
                raise SchemaError("only (?: groups are supported in pattern " + p)
            out.append(c)
        elif c == "{":
            m = _QUANTIFIER.match(p, i)
            if not m:
                raise SchemaError("lone { in pattern " + p)
            out.append(m.group(0))
            i = m.end()
            continue
        elif c == "}":
            raise SchemaError("lone } in pattern " + p)
        else:
            out.append(c)
        i += 1
    if in_class:
        raise SchemaError("unterminated class in pattern " + p)
    return "".join(out)


class _Compiler:
    def __init__(self, root):
        self.root = root
        self.refs = {}

    def ref(self, ref):
        if ref in self.refs:
            return self.refs[ref]
        if not ref.startswith("#/"):
            raise SchemaError("only local $ref is supported: " + ref)
        node = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise SchemaError("$ref to nothing: " + ref)
            node = node[part]
        cell = []
        self.refs[ref] = lambda v: cell[0](v)  # allows a reference cycle
        cell.append(self.compile(node, ref))
        self.refs[ref] = cell[0]
        return cell[0]

    def compile(self, node, at):
        if node is True:
            return lambda v: True
        if node is False:
            return lambda v: False
        if not isinstance(node, dict):
            raise SchemaError(at + ": a schema must be an object or a boolean")
        checks = []
        for key, arg in node.items():
            if key in _ANNOTATIONS:
                continue
            make = getattr(self, "k_" + key.lstrip("$"), None)
            if make is None:
                raise SchemaError(at + ": unknown keyword " + key)
            checks.append(make(arg, node, at + "/" + key))
        checks = [c for c in checks if c is not None]
        if len(checks) == 1:
            return checks[0]
        checks = tuple(checks)
        return lambda v: all(c(v) for c in checks)

    # One method per keyword: k_<keyword>(argument, node, location) -> check or None.

    def k_ref(self, arg, node, at):
        return self.ref(arg)

    def k_type(self, arg, node, at):
        names = [arg] if isinstance(arg, str) else list(arg)
        try:
            tests = tuple(_TYPES[t] for t in names)
        except KeyError:
            raise SchemaError(at + ": unknown type " + repr(arg))
        return lambda v: any(t(v) for t in tests)

    def k_const(self, arg, node, at):
        return lambda v: _json_equal(v, arg)

    def k_enum(self, arg, node, at):
        return lambda v: any(_json_equal(v, e) for e in arg)

    def k_required(self, arg, node, at):
        names = tuple(arg)
        return lambda v: not isinstance(v, dict) or all(n in v for n in names)

    def k_properties(self, arg, node, at):
        props = tuple((name, self.compile(sub, at + "/" + name)) for name, sub in arg.items())

        def check(v):
            if not isinstance(v, dict):
                return True
            for name, c in props:
                if name in v and not c(v[name]):
                    return False
            return True
        return check

    def k_additionalProperties(self, arg, node, at):
        if "patternProperties" in node:
            raise SchemaError(at + ": patternProperties is not supported")
        known = frozenset(node.get("properties", {}))
        sub = self.compile(arg, at)

        def check(v):
            if not isinstance(v, dict):
                return True
            return all(sub(v[k]) for k in v if k not in known)
        return check

    def k_minLength(self, arg, node, at):
        return lambda v: not isinstance(v, str) or len(v) >= arg

    def k_maxLength(self, arg, node, at):
        return lambda v: not isinstance(v, str) or len(v) <= arg

    def k_pattern(self, arg, node, at):
        rx = re.compile(translate_pattern(arg))
        return lambda v: not isinstance(v, str) or rx.search(v) is not None

    def k_minimum(self, arg, node, at):
        return lambda v: not _is_number(v) or v >= arg

    def k_maximum(self, arg, node, at):
        return lambda v: not _is_number(v) or v <= arg

    def k_allOf(self, arg, node, at):
        subs = tuple(self.compile(s, "%s/%d" % (at, i)) for i, s in enumerate(arg))
        return lambda v: all(s(v) for s in subs)

    def k_oneOf(self, arg, node, at):
        subs = tuple(self.compile(s, "%s/%d" % (at, i)) for i, s in enumerate(arg))
        tags = [self._discriminator(s) for s in arg]
        names = {t[0] for t in tags if t}
        if len(names) == 1 and all(tags):
            # Every branch is an object requiring member `name` with a string const:
            # an object whose member differs from a branch's const fails that
            # branch, so only the branch it names is tried. Same verdict, fewer checks.
            name = names.pop()
            by_tag = {}
            for (_, value), s in zip(tags, subs):
                by_tag.setdefault(value, []).append(s)

            def check(v):
                if isinstance(v, dict) and isinstance(v.get(name), str):
                    return sum(1 for s in by_tag.get(v[name], ()) if s(v)) == 1
                return sum(1 for s in subs if s(v)) == 1
            return check

        def check(v):
            seen = False
            for s in subs:
                if s(v):
                    if seen:
                        return False
                    seen = True
            return seen
        return check

    def _discriminator(self, sub):
        """(name, const) when sub (through one $ref) is an object schema that
        requires member name and gives it a string const; else None."""
        if isinstance(sub, dict) and set(sub) == {"$ref"} and sub["$ref"].startswith("#/"):
            node = self.root
            for part in sub["$ref"][2:].split("/"):
                node = node.get(part) if isinstance(node, dict) else None
            sub = node
        if not isinstance(sub, dict) or sub.get("type") != "object":
            return None
        for name in sub.get("required", ()):
            const = sub.get("properties", {}).get(name, {}).get("const")
            if isinstance(const, str):
                return name, const
        return None


def compile_schema(root):
    """Return a function value -> bool for the schema document root."""
    if "$defs" in root:
        c = _Compiler(root)
        for name in root["$defs"]:
            c.ref("#/$defs/" + name)  # compile every definition, used or not, so none is unchecked
        return c.compile(root, "#")
    return _Compiler(root).compile(root, "#")


def load_schema(path=SCHEMA_FILE):
    """Read and compile the contract schema."""
    try:
        with open(path, "rb") as f:
            return compile_schema(json.load(f))
    except FileNotFoundError:
        raise FileNotFoundError(path + " is missing: run contract/handlerkit/python/sync_schema.py") from None
