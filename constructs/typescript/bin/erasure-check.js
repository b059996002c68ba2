#!/usr/bin/env node
// erasure-check [flags] <cdk.out or template>...: the erasure channel's
// app-wide check for CI, with erasurectl check's flags, exit codes and text,
// JSON and SARIF output (the same Go code, run as WebAssembly).
require('../lib/check').main(process.argv.slice(2));
