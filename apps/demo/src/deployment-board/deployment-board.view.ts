import { Injectable, Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpAppView, McpError, McpErrorCode } from 'nest-mcp';
import { DEPLOYMENT_BOARD_BUNDLE, DEPLOYMENT_BOARD_VIEW } from './deployment-board.constants.js';

/** The repository root: the nearest folder above this file that holds nest-cli.json (from the sources or from dist/). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'nest-cli.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('The deployment board cannot find the repository root (nest-cli.json)');
    dir = parent;
  }
  return dir;
}

/**
 * Serves the deployment board: the single-file HTML that `npm run build:demo` (or `npm start`) bundles from
 * apps/demo/views/deployment-board with the ext-apps `App` (scripts/build-demo-views.mjs). It is read on first use,
 * not at startup, so the console still starts (without its board) from a tree where the views were never built.
 */
@Injectable()
export class DeploymentBoardView {
  private readonly logger = new Logger('DeploymentBoardView');
  private html?: string;

  @McpAppView(DEPLOYMENT_BOARD_VIEW, {
    title: 'Deployment board',
    description: 'Live progress of a deploy_release rollout, with a button to cancel it',
    prefersBorder: true,
  })
  board(): string {
    if (this.html === undefined) {
      const file = join(repositoryRoot(), DEPLOYMENT_BOARD_BUNDLE);
      if (!existsSync(file)) {
        this.logger.error(`${file} is missing: build the views with npm run build:demo (npm start does it too)`);
        throw new McpError(McpErrorCode.InternalError, 'The deployment board is not built on this server');
      }
      this.html = readFileSync(file, 'utf8');
    }
    return this.html;
  }
}
