#!/usr/bin/env python3
"""Builds the Maven platform jars of erasure-check (stdlib Python + javac).

    check_jars.py NATIVES VERSION OUTDIR

NATIVES holds one build of the static Go command per platform, in Node's
names (linux-x64/erasure-check ... win32-x64/erasure-check.exe). This writes,
as a Maven repository under OUTDIR, com.linn-cloud:erasure-channel-check:VERSION:
its pom and one jar per os-maven-plugin classifier (linux-x86_64 ...), so that
a team downloads the one binary its machines run instead of all five. There is
no classifier-less jar: a build names its platform's classifier. Each jar is
runnable (`java -jar`): java/ErasureCheck.java (compiled with `javac --release
11`), the binary and its SHA-256 as resources. The jars are reproducible:
sorted entries, 1980-01-01 timestamps, fixed modes, deflate.
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

GROUP, ARTIFACT = "com.linn-cloud", "erasure-channel-check"
PKG = "com/linncloud/erasurechannel/check"
MAIN_CLASS = PKG.replace("/", ".") + ".ErasureCheck"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "ErasureCheck.java")
REPO_URL = "https://github.com/linn-cloud/erasure-channel"
DESCRIPTION = ("The erasure channel's app-wide check (erasure-check) as a native "
               "command for one platform: pick the jar by classifier.")

# Node's platform-arch -> (binary, os-maven-plugin classifier).
PLATFORMS = {
    "linux-x64": ("erasure-check", "linux-x86_64"),
    "linux-arm64": ("erasure-check", "linux-aarch_64"),
    "darwin-x64": ("erasure-check", "osx-x86_64"),
    "darwin-arm64": ("erasure-check", "osx-aarch_64"),
    "win32-x64": ("erasure-check.exe", "windows-x86_64"),
}

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>{group}</groupId>
  <artifactId>{artifact}</artifactId>
  <version>{version}</version>
  <packaging>jar</packaging>
  <name>{group}:{artifact}</name>
  <description>{description}</description>
  <url>{url}</url>
  <licenses>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0</url>
      <distribution>repo</distribution>
    </license>
  </licenses>
  <developers>
    <developer>
      <organization>linn-cloud</organization>
    </developer>
  </developers>
  <scm>
    <connection>scm:git:{url}.git</connection>
    <url>{url}</url>
  </scm>
</project>
"""


def write_jar(path, entries):
    """entries: (name, bytes or None for a folder, executable); written in order."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, exe in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3  # unix, so that external_attr holds the mode
            if data is None:
                info.external_attr = (0o40755 << 16) | 0x10  # a folder (MS-DOS flag too)
                zf.writestr(info, b"")
            else:
                info.external_attr = (0o100755 if exe else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data, compresslevel=9)


def write_with_checksums(path, data):
    """The file and its .md5 and .sha1, as a Maven repository holds them."""
    with open(path, "wb") as f:
        f.write(data)
    for algo in ("md5", "sha1"):
        with open(f"{path}.{algo}", "w") as f:
            f.write(hashlib.new(algo, data).hexdigest())


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: check_jars.py NATIVES VERSION OUTDIR")
    natives, version, outdir = argv
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z._-]*", version):
        sys.exit(f"check_jars.py: {version!r} is not a Maven version")
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run(["javac", "--release", "11", "-encoding", "UTF-8", "-d", classes, SOURCE],
                       check=True)
        compiled = []
        for name in sorted(os.listdir(os.path.join(classes, PKG))):
            with open(os.path.join(classes, PKG, name), "rb") as f:
                compiled.append((f"{PKG}/{name}", f.read()))
    manifest = ("Manifest-Version: 1.0\r\n"
                "Created-By: erasure-channel check_jars.py\r\n"
                f"Main-Class: {MAIN_CLASS}\r\n"
                f"Automatic-Module-Name: {MAIN_CLASS.rsplit('.', 1)[0]}\r\n"
                f"Implementation-Title: {ARTIFACT}\r\n"
                f"Implementation-Version: {version}\r\n"
                "Implementation-Vendor: linn-cloud\r\n\r\n").encode()
    folders = [PKG.rsplit("/", i)[0] + "/" for i in range(PKG.count("/"), -1, -1)]
    dest = os.path.join(outdir, *GROUP.split("."), ARTIFACT, version)
    os.makedirs(dest, exist_ok=True)
    base = os.path.join(dest, f"{ARTIFACT}-{version}")
    write_with_checksums(base + ".pom", POM.format(
        group=GROUP, artifact=ARTIFACT, version=version, description=DESCRIPTION,
        url=REPO_URL).encode())
    print(base + ".pom")
    for platform, (exe, classifier) in PLATFORMS.items():
        with open(os.path.join(natives, platform, exe), "rb") as f:
            binary = f.read()
        files = compiled + [(f"{PKG}/{exe}", binary),
                            (f"{PKG}/{exe}.sha256", hashlib.sha256(binary).hexdigest().encode())]
        # The manifest first (JarInputStream looks for it there), then sorted.
        entries = [("META-INF/", None, False), ("META-INF/MANIFEST.MF", manifest, False)]
        entries += sorted([(d, None, False) for d in folders] +
                          [(n, d, n.endswith("/" + exe)) for n, d in files])
        path = f"{base}-{classifier}.jar"
        write_jar(path + ".tmp", entries)
        with open(path + ".tmp", "rb") as f:
            write_with_checksums(path, f.read())
        os.remove(path + ".tmp")
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
