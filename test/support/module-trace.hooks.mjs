/**
 * Module hooks that record every module a child process loads: `node --import ./test/support/ts-child.loader.mjs
 * --import ./test/support/module-trace.hooks.mjs …` with `MODULE_TRACE_FILE` set appends each loaded URL (ES modules,
 * and CommonJS packages where an ES module imports them) to that file, one per line. Registered last, it runs first:
 * it sees the URL the TypeScript loader resolved.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// Imported with --import, this file registers itself; Node then loads it again on the hooks thread.
if (isMainThread) register(import.meta.url, { data: process.env.MODULE_TRACE_FILE });

let traceFile;

/** Receives the trace file's path from the main thread. */
export function initialize(file) {
  traceFile = file;
}

/** Records the URL, then loads it as the next hook would. */
export async function load(url, context, nextLoad) {
  if (traceFile) appendFileSync(traceFile, `${url}\n`);
  return nextLoad(url, context);
}
