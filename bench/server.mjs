#!/usr/bin/env node
/**
 * `npm run bench:server -- --adapter express|fastify --port N [--tools N]`: builds the bench if needed, then
 * serves nest-mcp with the bench tools (`echo`, `count`, `confirm`; `echo_task` with `--tasks`) alone on 127.0.0.1, for outside tools.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT, ensureBuilt } from './build.mjs';

ensureBuilt();
await import(pathToFileURL(join(BUILT, 'servers/nest-mcp.server.js')).href);
