#!/usr/bin/env node
import { runCli } from './cli.runner.js';

/**
 * The `nest-mcp` command of the `nest-mcp-cli` package (in this repository, `bin/nest-mcp.mjs` runs it; see
 * docs/stdio.md). Ctrl+C cancels the request in flight; a second Ctrl+C ends the process at once.
 */
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  interrupt: interrupt.signal,
});
// A transport that keeps a handle open must not keep a finished command alive.
setTimeout(() => process.exit(), 2_000).unref();
