"""The erasure channel's refusals as a short block, not a trace.

jsii raises a construct's refusal in Python as a RuntimeError from the
kernel: Python prints the kernel's JavaScript stack, a traceback through
jsii's own frames, then the refusal again. This module (installed into
erasure_channel_constructs by tools/release/python_artifacts.py and imported
by the package) chains a sys.excepthook that prints a refusal of the
channel's constructs once, as CDK words it (each construct path, rule, line
and fix), and leaves every other exception to the hook it found.
ERASURE_CHANNEL_TRACE=1 keeps the whole traceback.
"""
import os
import re
import sys

_REFUSAL = re.compile(r"^\s*\[[^\]\n]+\] EC\d{3} ", re.M)


def _install() -> None:
    previous = sys.excepthook

    def hook(kind, value, tb):
        text = str(value)
        if os.environ.get("ERASURE_CHANNEL_TRACE") != "1" and issubclass(kind, RuntimeError) and _REFUSAL.search(text):
            sys.stderr.write(text.rstrip("\n") + "\n")
            sys.stderr.flush()
            return
        previous(kind, value, tb)

    sys.excepthook = hook


_install()
