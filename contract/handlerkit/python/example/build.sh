#!/usr/bin/env bash
# Build the example's Lambda directory: the kit (without boto3, which the
# Lambda Python runtime provides) plus app.py. Handler string: app.handler.
#
#   contract/handlerkit/python/example/build.sh DEST
set -euo pipefail
dest=${1:?usage: build.sh DEST}
here=$(cd "$(dirname "$0")" && pwd)
kit=$(dirname "$here")
python=${PYTHON:-python3}
"$python" "$kit/sync_schema.py"
# With a local setuptools that can build a wheel (>= 70.1, or any >= 61 with
# the wheel package) the build needs no network; otherwise pip fetches them.
isolation=()
if "$python" - 2>/dev/null <<'PY'
import sys
import setuptools
v = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
try:
    import wheel  # noqa: F401
    has_wheel = True
except ImportError:
    has_wheel = False
sys.exit(0 if v >= (70, 1) or (v >= (61, 0) and has_wheel) else 1)
PY
then
  isolation=(--no-build-isolation)
fi
"$python" -m pip install --quiet --disable-pip-version-check --no-deps "${isolation[@]}" --upgrade --target "$dest" "$kit"
rm -rf "$kit/build" "$kit"/*.egg-info  # setuptools' in-tree leftovers
cp "$here/app.py" "$dest/app.py"
echo "built $dest (handler app.handler)"
