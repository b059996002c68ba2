#!/usr/bin/env python3
"""Builds the PyPI platform packages of erasure-check (stdlib only).

    check_wheels.py NATIVES VERSION OUTDIR

NATIVES holds one build of the static Go command per platform, in Node's
names (linux-x64/erasure-check ... win32-x64/erasure-check.exe). For each, this
writes OUTDIR/erasure_channel_check-VERSION-py3-none-<tag>.whl: the binary,
a launcher (the `erasure-check` console script and `python -m
erasure_channel_check`) and a .dist-info. One wheel per platform, so that pip
downloads the one binary a team's machine runs instead of all five. The wheels
are byte-for-byte reproducible: sorted entries, 1980-01-01 timestamps, fixed
modes, deflate.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile

DIST = "erasure-channel-check"
PKG = "erasure_channel_check"
SUMMARY = ("The erasure channel's app-wide check (erasure-check) as a native "
           "command for one platform")

# Node's platform-arch -> (binary, wheel platform tag; "." joins a compressed tag set).
# The Linux binaries are static, so they run on glibc and musl alike.
PLATFORMS = {
    "linux-x64": ("erasure-check", "manylinux2014_x86_64.musllinux_1_1_x86_64"),
    "linux-arm64": ("erasure-check", "manylinux2014_aarch64.musllinux_1_1_aarch64"),
    "darwin-x64": ("erasure-check", "macosx_12_0_x86_64"),
    "darwin-arm64": ("erasure-check", "macosx_12_0_arm64"),
    "win32-x64": ("erasure-check.exe", "win_amd64"),
}

LAUNCHER = '''\
"""erasure-check, the erasure channel's app-wide check, as a native command.

This wheel carries the binary for one platform (bin/); main() runs it with the
command line's arguments and exits with its exit code.
"""
import os
import sys

_NAME = "erasure-check.exe" if os.name == "nt" else "erasure-check"
BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _NAME)


def main():
    """erasure-check."""
    _launch("erasure-check")


def conform():
    """erasure-conform: the same program, started under that name."""
    _launch("erasure-conform")


def _launch(command):
    args = sys.argv[1:]
    os.environ["ERASURE_COMMAND"] = command  # where argv[0] cannot carry it (Windows)
    if not os.path.isfile(BINARY):
        _fail("the native binary is missing (%s); reinstall erasure-channel-check "
              "for this platform" % BINARY)
    if os.name == "nt":
        sys.exit(_run(BINARY, args))
    if not os.access(BINARY, os.X_OK):  # the installer dropped the mode
        try:
            os.chmod(BINARY, os.stat(BINARY).st_mode | 0o100)
        except OSError:
            pass
    if os.access(BINARY, os.X_OK):
        try:
            os.execv(BINARY, [command] + args)
        except OSError as e:
            _fail("cannot run %s: %s" % (BINARY, e))
    # A read-only install without the x bit: run a private copy, then remove it.
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="erasure-check-")
    try:
        copy = os.path.join(tmp, _NAME)
        shutil.copyfile(BINARY, copy)
        os.chmod(copy, 0o700)
        code = _run(copy, args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(code)


def _run(path, args):
    import subprocess

    try:
        proc = subprocess.Popen([path] + args)
    except OSError as e:
        _fail("cannot run %s: %s" % (path, e))
    while True:
        try:
            code = proc.wait()
            return code if code >= 0 else 128 - code  # killed by a signal
        except KeyboardInterrupt:
            pass  # Ctrl-C reached the child too: wait for it to exit


def _fail(msg):
    sys.stderr.write("erasure-check: %s\\n" % msg)
    sys.exit(2)
'''

MAIN = f"from {PKG} import main\n\nmain()\n"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}\n"


def write_wheel(path, files, executables):
    """files: ordered (name, bytes), the RECORD last; executables get mode 0o755."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3  # unix, so that external_attr holds the mode
            info.external_attr = (0o100755 if name in executables else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=9)


def build(natives, version, outdir, platform):
    exe, tag = PLATFORMS[platform]
    with open(os.path.join(natives, platform, exe), "rb") as f:
        binary = f.read()
    info = f"{PKG}-{version}.dist-info"
    tags = "".join(f"Tag: py3-none-{t}\n" for t in tag.split("."))
    pkg = sorted([
        (f"{PKG}/__init__.py", LAUNCHER.encode()),
        (f"{PKG}/__main__.py", MAIN.encode()),
        (f"{PKG}/bin/{exe}", binary),
    ])
    meta = [  # the .dist-info last, as the wheel spec recommends, RECORD at the end
        (f"{info}/METADATA", (
            "Metadata-Version: 2.1\n"
            f"Name: {DIST}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "License: Apache-2.0\n"
            "Project-URL: Source, https://github.com/linn-cloud/erasure-channel\n"
            "Requires-Python: >=3.9\n").encode()),
        (f"{info}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: erasure-channel check_wheels.py\n"
            f"Root-Is-Purelib: false\n{tags}").encode()),
        (f"{info}/entry_points.txt",
         f"[console_scripts]\nerasure-check = {PKG}:main\nerasure-conform = {PKG}:conform\n".encode()),
    ]
    files = pkg + sorted(meta)
    record = "".join(record_line(n, d) for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    path = os.path.join(outdir, f"{PKG}-{version}-py3-none-{tag}.whl")
    write_wheel(path, files, {f"{PKG}/bin/{exe}"})
    return path


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: check_wheels.py NATIVES VERSION OUTDIR")
    natives, version, outdir = argv
    # A normalized PEP 440 release; an npm prerelease (0.4.0-rc.1) would be 0.4.0rc1.
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", version):
        sys.exit(f"check_wheels.py: {version!r} is not a normalized PEP 440 version")
    os.makedirs(outdir, exist_ok=True)
    for platform in PLATFORMS:
        print(build(natives, version, outdir, platform))


if __name__ == "__main__":
    main(sys.argv[1:])
