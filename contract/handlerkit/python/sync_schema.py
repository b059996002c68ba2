"""Copy the repository's schema files into the package.

    python3 contract/handlerkit/python/sync_schema.py

The kit validates against schema/erasure-contract.schema.json and reads its
caps from schema/erasure-channel-constants.json: the repository's own files,
copied here (git-ignored), never retyped. setup.py runs this before every
build and the tests run it before they load the package, so a copy is never
older than the repository's file.
"""
import os
import shutil
import sys

KIT_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.join(KIT_DIR, "erasure_channel_handler")
REPO_SCHEMA_DIR = os.path.normpath(os.path.join(KIT_DIR, "..", "..", "..", "schema"))
FILES = ("erasure-contract.schema.json", "erasure-channel-constants.json")


def sync(required=True):
    """Copy FILES from the repository's schema/ into the package directory.

    Outside the repository (a build from an unpacked sdist) there is nothing
    to copy: then the copies already in the package are used, and it is an
    error only if they are missing and required is true.
    """
    if not os.path.isdir(REPO_SCHEMA_DIR):
        missing = [f for f in FILES if not os.path.isfile(os.path.join(PACKAGE_DIR, f))]
        if missing and required:
            raise FileNotFoundError("no repository schema/ beside the kit and no copies of " + ", ".join(missing))
        return []
    copied = []
    for name in FILES:
        src = os.path.join(REPO_SCHEMA_DIR, name)
        dst = os.path.join(PACKAGE_DIR, name)
        with open(src, "rb") as f:
            data = f.read()
        old = None
        if os.path.isfile(dst):
            with open(dst, "rb") as f:
                old = f.read()
        if old != data:
            tmp = dst + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, dst)
            copied.append(name)
    return copied


if __name__ == "__main__":
    for name in sync():
        print("copied " + name, file=sys.stderr)
