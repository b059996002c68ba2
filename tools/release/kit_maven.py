"""Lays the Java handler kit's jar and POM out in dist/java as a Maven
repository holds them (with .md5 and .sha1), beside the constructs' jars.

Usage: python3 kit_maven.py KIT_DIR VERSION DIST_JAVA_DIR
"""
import os
import sys

from check_jars import write_with_checksums

GROUP, ARTIFACT = "com.linn-cloud", "erasure-handler-kit"


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: kit_maven.py KIT_DIR VERSION DIST_JAVA_DIR")
    kit, version, out = argv
    dest = os.path.join(out, *GROUP.split("."), ARTIFACT, version)
    os.makedirs(dest, exist_ok=True)
    base = os.path.join(dest, f"{ARTIFACT}-{version}")
    for src, suffix in ((os.path.join(kit, "target", f"{ARTIFACT}-{version}.jar"), ".jar"),
                        (os.path.join(kit, "pom.xml"), ".pom")):
        with open(src, "rb") as f:
            write_with_checksums(base + suffix, f.read())
        print(base + suffix)


if __name__ == "__main__":
    main(sys.argv[1:])
