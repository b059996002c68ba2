#!/usr/bin/env node
// erasure-conform --runtime RUNTIME --handler HANDLER DIR: judges a store's
// erasure handler in its own Lambda runtime against the channel's protocol,
// with erasurectl conform's flags, exit codes and JUnit output (the same Go
// code, the package's native build for this platform).
require('../lib/check').conformMain(process.argv.slice(2));
