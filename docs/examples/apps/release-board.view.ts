import { Injectable, Module } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import { McpAppView, McpAppViews, McpModule } from 'nest-mcp';
import { ReleaseTools } from './release-board.tools.js';

/** The single-file HTML of the board, as a build would produce it. */
const renderBoard = (): string =>
  '<!DOCTYPE html><html><body><main id="board">Waiting for a release…</main></body></html>';

// #region docs:view-method
@Injectable()
export class ReleaseBoardView {
  @McpAppView('ui://releases/board', {
    title: 'Release board',
    csp: { connectDomains: ['https://status.example.com'] }, // origins the view fetches from, if any
    prefersBorder: true,
  })
  board(): string {
    return renderBoard(); // one self-contained HTML document
  }
}
// #endregion docs:view-method

/** The board as a file: what a view built into dist/ looks like. */
const BOARD_FILE = fileURLToPath(new URL('./board.html', import.meta.url));

// #region docs:view-file
@Module({
  imports: [McpModule.forRoot({ name: 'releases', version: '1.0.0' })],
  providers: [
    ReleaseTools,
    // Read once at startup (a missing file or one that is not <!DOCTYPE html> fails the start).
    McpAppViews.fromFile('ui://releases/board', BOARD_FILE, { title: 'Release board', prefersBorder: true }),
  ],
})
export class ReleasesModule {}
// #endregion docs:view-file

/** The same server with the view from a method. */
@Module({
  imports: [McpModule.forRoot({ name: 'releases', version: '1.0.0' })],
  providers: [ReleaseTools, ReleaseBoardView],
})
export class ReleasesFromMethodModule {}
