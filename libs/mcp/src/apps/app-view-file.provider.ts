import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import type { McpAppViewOptions } from '../decorators/mcp-app-options.interface.js';
import { McpAppView } from '../decorators/mcp-app-view.decorator.js';

/** What a view file must start with (after white space): MCP Apps views are HTML5 documents. */
const HTML5_DOCTYPE = /^\uFEFF?\s*<!doctype html>/i;

/** MCP Apps views served from files: providers to list in a module, like any `@McpAppView` provider. */
export const McpAppViews = {
  /**
   * A provider that serves the HTML file `file` (an absolute path; typically a single-file bundle your build
   * produces) as the view `uri`, with `options` as `@McpAppView` takes them (`name` defaults to the URI). The file is
   * read once, when the module initializes: a missing file, or one that is not an HTML5 document
   * (`<!DOCTYPE html>`), fails the application's start with a message naming both. Views are templates, so the
   * default `ttlMs` is long (one hour).
   *
   * @example
   * ```ts
   * @Module({ providers: [McpAppViews.fromFile('ui://deploy/board', join(import.meta.dirname, 'board.html'), { prefersBorder: true })] })
   * export class DeployBoardModule {}
   * ```
   */
  fromFile(uri: string, file: string, options: McpAppViewOptions = {}): Type<unknown> {
    @Injectable()
    class McpAppViewFile implements OnModuleInit {
      private html?: string;

      async onModuleInit(): Promise<void> {
        let html: string;
        try {
          html = await readFile(file, 'utf8');
        } catch (error) {
          throw new Error(
            `nest-mcp: the MCP Apps view ${uri} cannot read its file ${file}: ${(error as Error).message}`,
          );
        }
        if (!HTML5_DOCTYPE.test(html)) {
          throw new Error(
            `nest-mcp: the MCP Apps view ${uri} reads ${file}, which is not an HTML5 document (<!DOCTYPE html>)`,
          );
        }
        this.html = html;
      }

      view(): string {
        // Read in onModuleInit, before any request can arrive.
        return this.html as string;
      }
    }
    const descriptor = Object.getOwnPropertyDescriptor(McpAppViewFile.prototype, 'view')!;
    McpAppView(uri, { name: uri, ...options })(McpAppViewFile.prototype, 'view', descriptor);
    // Bootstrap errors name the class: say which view it serves.
    Object.defineProperty(McpAppViewFile, 'name', { value: `McpAppViewFile[${uri}]` });
    return McpAppViewFile;
  },
};
