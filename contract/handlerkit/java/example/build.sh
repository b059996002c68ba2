#!/usr/bin/env bash
# Builds the example store handler as a directory the Lambda Java runtime interface client runs:
#
#   example/build.sh DEST
#
#   DEST/lib/*.jar   the kit, its dependencies and the runtime interface client (mvn dependency:copy-dependencies)
#   DEST/com/...     the example's classes
#
# Run it with:
#   java -cp "DEST/lib/*:DEST" com.amazonaws.services.lambda.runtime.api.client.AWSLambda \
#        com.linncloud.erasure.example.Handler::handleRequest
# Zip DEST's contents for a java17 or java21 Lambda with that handler string.
# Set MAVEN_ARGS=-o to build offline once the dependencies are downloaded.
set -euo pipefail
dest=${1:?usage: example/build.sh DEST}
here=$(cd "$(dirname "$0")" && pwd)
kit=$(dirname "$here")
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
mvn=(mvn -q -B ${MAVEN_ARGS:-})
# The kit into the local repository, then the example against it.
"${mvn[@]}" -f "$kit/pom.xml" -DskipTests install
rm -rf "$dest/lib" "$dest/com"
"${mvn[@]}" -f "$here/pom.xml" compile dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$dest/lib"
cp -R "$here/target/classes/." "$dest/"
echo "built $dest: handler com.linncloud.erasure.example.Handler::handleRequest" >&2
