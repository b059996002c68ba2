"""Finishes the jsii jar and sources jar that jsii-pacmak built.

Adds RunApp (tools/release/java/constructs/RunApp.java), compiled for Java 11
with the JDK alone, to com.linncloud.erasurechannel.constructs in the jar,
and its source to the sources jar: the quickstart's exec:java runs a team's
app through it, so that a refusal prints once as CDK words it, not inside
Maven's trace with the kernel's copy (RunApp says how). jsii generates the
package's classes from its assembly and has no place for a class of Java's
own, so it is added to the built jars, whose .md5 and .sha1 are written
again.

Usage: python3 java_artifacts.py DIST_JAVA_DIR VERSION
"""
import glob
import os
import subprocess
import sys
import tempfile
import zipfile

from check_jars import write_with_checksums

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "java", "constructs", "RunApp.java")
PACKAGE = "com/linncloud/erasurechannel/constructs/"


def add(jar: str, files: dict) -> None:
    """Rewrites jar with files (name -> bytes) added, dated as its manifest."""
    with zipfile.ZipFile(jar) as src:
        entries = [(i, src.read(i.filename)) for i in src.infolist()]
    names = {i.filename for i, _ in entries}
    clash = sorted(set(files) & names)
    if clash:
        raise SystemExit(f"{jar} already holds {clash}")
    stamp = next((i.date_time for i, _ in entries if i.filename == "META-INF/MANIFEST.MF"), (1980, 1, 1, 0, 0, 0))
    tmp = jar + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in entries:
            dst.writestr(info, data)
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            dst.writestr(info, files[name])
    os.replace(tmp, jar)
    write_with_checksums(jar, open(jar, "rb").read())


def main() -> None:
    dist, version = sys.argv[1], sys.argv[2]
    base = os.path.join(dist, "com", "linn-cloud", "erasure-channel-constructs", version, f"erasure-channel-constructs-{version}")
    jar, sources = base + ".jar", base + "-sources.jar"
    for path in (jar, sources):
        if not os.path.exists(path):
            raise SystemExit(f"{path}: not built (jsii-pacmak --targets java)")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["javac", "--release", "11", "-Xlint:all", "-Werror", "-d", out, SOURCE], check=True)
        classes = {PACKAGE + os.path.relpath(p, os.path.join(out, PACKAGE)): open(p, "rb").read()
                   for p in glob.glob(os.path.join(out, PACKAGE, "RunApp*.class"))}
    if not classes:
        raise SystemExit("javac wrote no RunApp class")
    add(jar, classes)
    add(sources, {PACKAGE + "RunApp.java": open(SOURCE, "rb").read()})


if __name__ == "__main__":
    main()
