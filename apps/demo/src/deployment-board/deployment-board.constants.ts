/** The `ui://` URI of the deployment board, the MCP Apps view of `deploy_release`. */
export const DEPLOYMENT_BOARD_VIEW = 'ui://ops-console/deployment-board';

/** The file the build writes the board's single-file bundle to, relative to the repository root. */
export const DEPLOYMENT_BOARD_BUNDLE = 'dist/apps/demo-views/deployment-board.html';
