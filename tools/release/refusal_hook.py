"""The erasure channel's refusals as a short block, not a trace.

jsii raises a construct's refusal in Python as a RuntimeError from the
kernel: Python prints the kernel's JavaScript stack, a traceback through
jsii's own frames, then the refusal again. This module (installed into
erasure_channel_constructs by tools/release/python_artifacts.py and imported
by the package) chains a sys.excepthook that prints a refusal of the
channel's constructs once, as CDK words it (each construct path, rule, line
and fix), and CDK's "Validation failed" after a policy validation report
(printed above it: the check's findings, or any other plugin's) as its one
line; it leaves every other exception to the hook it found. ERASURE_CHANNEL_TRACE=1 keeps the
whole traceback.
"""
import os
import re
import sys

_REFUSAL = re.compile(r"^\s*\[[^\]\n]+\] EC\d{3} (?:ErasureSubscriber|BitmapStoreBucket)\[", re.M)
_REPORTED = re.compile(r"^ValidationFailed: Validation failed\.")


def _without_kernel_copy(text: str) -> str:
    """text up to the kernel's copy of it or a JavaScript stack, if any."""
    for end in ("\n@jsii/kernel.", "\n    at "):
        i = text.find(end)
        if i >= 0:
            text = text[:i]
    return text.rstrip("\n")


def _install() -> None:
    previous = sys.excepthook

    def hook(kind, value, tb):
        text = str(value)
        if os.environ.get("ERASURE_CHANNEL_TRACE") != "1" and issubclass(kind, RuntimeError):
            if _REFUSAL.search(text):
                sys.stderr.write(_without_kernel_copy(text) + "\n")
                sys.stderr.flush()
                return
            if _REPORTED.match(text):
                sys.stderr.write(text.splitlines()[0] + "\n")
                sys.stderr.flush()
                return
        previous(kind, value, tb)

    sys.excepthook = hook


_install()
