"""Finishes the jsii wheel and sdist that jsii-pacmak built.

1. Leaves their own `erasure-check` and `erasure-conform` scripts out. jsii-pacmak gives every `bin` of package.json to the Python distribution as a
script that starts the jsii kernel, unpacks the package's tarball and runs
the npm command in it: seconds a run. The check's command for Python teams is
the platform wheel's (`erasure-channel-check`, tools/release/check_wheels.py),
which runs the native build directly; two distributions must not both own
`bin/erasure-check`, and jsii has no switch to leave a bin out of one target,
so this rewrites the two artifacts after jsii-pacmak built them.

2. Adds refusal_hook.py as erasure_channel_constructs/_refusal_hook.py and
imports it from the package's __init__.py: a construct's refusal then prints
as one short block, not a JavaScript stack and a traceback around it twice
(tools/release/refusal_hook.py says how).

Usage: python3 python_artifacts.py DIST_PYTHON_DIR
"""
import glob
import io
import os
import re
import sys
import tarfile
import zipfile

from check_wheels import record_line

SCRIPTS = ("erasure-check", "erasure-conform")  # the platform wheel owns both commands
HOOK = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "refusal_hook.py"), "rb").read()
HOOK_MODULE = "_refusal_hook.py"
IMPORT = b"\n\nfrom . import _refusal_hook as _refusal_hook  # the channel's refusals as a short block (not jsii's)\n"


def with_hook(name: str, data: bytes) -> bytes:
    """data, the package's __init__.py with the hook's import appended (else as it is)."""
    if name.endswith("erasure_channel_constructs/__init__.py"):
        if b"_refusal_hook" in data:
            raise SystemExit(f"{name} already imports the refusal hook")
        return data.rstrip(b"\n") + IMPORT
    return data


def rewrite_wheel(path: str) -> None:
    with zipfile.ZipFile(path) as src:
        entries = [(i, src.read(i.filename)) for i in src.infolist()]
    dropped = [i.filename for i, _ in entries if i.filename.endswith(tuple(".data/scripts/" + s for s in SCRIPTS))]
    if len(dropped) != len(SCRIPTS):
        raise SystemExit(f"{path}: expected scripts/{SCRIPTS}, found {dropped}")
    kept = [(i, with_hook(i.filename, b)) for i, b in entries if i.filename not in dropped]
    init = next(i for i, _ in kept if i.filename == "erasure_channel_constructs/__init__.py")
    hook_info = zipfile.ZipInfo("erasure_channel_constructs/" + HOOK_MODULE, date_time=init.date_time)
    hook_info.external_attr, hook_info.compress_type = init.external_attr, zipfile.ZIP_DEFLATED
    kept.insert(kept.index(next(e for e in kept if e[0] is init)) + 1, (hook_info, HOOK))
    record_name = next(i.filename for i, _ in kept if i.filename.endswith(".dist-info/RECORD"))
    rows = []
    for info, data in kept:
        if info.filename == record_name:
            continue
        rows.append(record_line(info.filename, data))
    rows.append(f"{record_name},,\n")
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in kept:
            if info.filename == record_name:
                data = "".join(rows).encode()
            dst.writestr(info, data)
    os.replace(tmp, path)


def rewrite_sdist(path: str) -> None:
    with tarfile.open(path, "r:gz") as src:
        members = [(m, src.extractfile(m).read() if m.isfile() else None) for m in src.getmembers()]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as dst:
        for m, data in members:
            if m.name.endswith(tuple("/_jsii/bin/" + s for s in SCRIPTS)) or m.name.endswith("/_jsii/bin"):
                continue
            if m.name.endswith("/setup.py") and m.name.count("/") == 1:
                text = data.decode()
                new = re.sub(r',\n    "scripts": \[\n[^\]]*\]', "", text)
                if new == text:
                    raise SystemExit(f"{path}: setup.py has no scripts list to drop")
                data = new.encode()
                m.size = len(data)
            if m.name.endswith("/src/erasure_channel_constructs/__init__.py"):
                data = with_hook("erasure_channel_constructs/__init__.py", data)
                m.size = len(data)
                dst.addfile(m, io.BytesIO(data))
                hook = tarfile.TarInfo(m.name.rsplit("/", 1)[0] + "/" + HOOK_MODULE)
                hook.size, hook.mtime, hook.mode = len(HOOK), m.mtime, m.mode
                dst.addfile(hook, io.BytesIO(HOOK))
                continue
            if m.name.endswith("/SOURCES.txt"):
                data = b"".join(l for l in data.splitlines(keepends=True)
                                if not l.rstrip().endswith(tuple(("/_jsii/bin/" + s).encode() for s in SCRIPTS)))
                m.size = len(data)
            dst.addfile(m, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def main() -> None:
    d = sys.argv[1]
    wheels = glob.glob(os.path.join(d, "erasure_channel_constructs-*-py3-none-any.whl"))
    sdists = glob.glob(os.path.join(d, "erasure_channel_constructs-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise SystemExit(f"{d}: want one jsii wheel and one sdist, found {wheels + sdists}")
    rewrite_wheel(wheels[0])
    rewrite_sdist(sdists[0])


if __name__ == "__main__":
    main()
