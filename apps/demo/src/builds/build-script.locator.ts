import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_SCRIPT } from './build-script.constants.js';

/**
 * The absolute path of scripts/build.mjs: the first folder above this file that holds it. The demo runs from its
 * sources (tests) and from dist/apps/demo/… (`npm start`), at different depths below the repository's root.
 */
export function locateBuildScript(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, BUILD_SCRIPT);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir)
      throw new Error(`${BUILD_SCRIPT} was not found above ${from}: the demo runs from a checkout of the repository`);
  }
}
