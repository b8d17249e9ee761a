#!/usr/bin/env node
/**
 * `npm run bench [-- options]`: builds the bench if needed (bench/build.mjs), then runs the harness
 * (bench/harness/main.ts): every server in its own child process on 127.0.0.1, interleaved rounds, ratios against
 * the baselines of the same run, a JSON file per run in bench/results/ and docs/performance.md. `--help` for options.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT, ensureBuilt } from './build.mjs';

ensureBuilt();
await import(pathToFileURL(join(BUILT, 'harness/main.js')).href);
