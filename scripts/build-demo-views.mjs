#!/usr/bin/env node
/**
 * Builds the demo's MCP Apps views into single self-contained HTML files (no CDN, no other request): for each view
 * folder under apps/demo/views/<name>/, `board.ts`-style entry `<entry>.ts` is bundled with esbuild (the ext-apps `App`
 * and its dependencies included, one IIFE, minified) and inlined into the folder's `.html` template, before
 * `</body>`. Output: dist/apps/demo-views/<name>.html, which the demo serves (apps/demo/src/deployment-board).
 *
 *   node scripts/build-demo-views.mjs          (run by `npm run build:demo` and `npm start`)
 *
 * The output depends only on the sources and the pinned esbuild: the same tree gives the same bytes.
 */
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the view sources live: one folder per view, with one `.html` template and one `.ts` entry. */
export const VIEWS_SOURCE = join(ROOT, 'apps/demo/views');
/** Where the built views go (outside dist/apps/demo, which `nest build demo` empties). */
export const VIEWS_OUT = join(ROOT, 'dist/apps/demo-views');

/** Builds every view; resolves with the files written. */
export async function buildDemoViews() {
  mkdirSync(VIEWS_OUT, { recursive: true });
  const written = [];
  for (const entry of readdirSync(VIEWS_SOURCE, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = join(VIEWS_SOURCE, entry.name);
    const files = readdirSync(folder);
    const template = files.filter((file) => file.endsWith('.html'));
    const script = files.filter((file) => file.endsWith('.ts'));
    if (template.length !== 1 || script.length !== 1) {
      throw new Error(
        `${folder} needs exactly one .html template and one .ts entry (found ${[...template, ...script].join(', ') || 'none'})`,
      );
    }
    const bundle = await build({
      entryPoints: [join(folder, script[0])],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      charset: 'utf8',
      logLevel: 'warning',
    });
    // Inside an inline <script>, "</script" would end the element early: escaped, it is the same JavaScript.
    const js = bundle.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
    const html = readFileSync(join(folder, template[0]), 'utf8');
    if (!html.includes('</body>')) throw new Error(`${template[0]} has no </body> to put the script before`);
    const out = join(VIEWS_OUT, `${entry.name}.html`);
    writeFileSync(
      out,
      html.replace('</body>', () => `<script>${js}</script>\n  </body>`),
    );
    written.push(out);
  }
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of await buildDemoViews()) console.error(`[build-demo-views] ${file}`);
}
