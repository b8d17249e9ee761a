import { Injectable } from '@nestjs/common';
import { McpArgs, McpScopes, McpTool } from 'nest-mcp';

/** Releases in progress, by service (a stand-in for a CI/CD system). */
const releases = new Map<string, { version: string; done: number; of: number }>();

// #region docs:tool-with-view
@Injectable()
export class ReleaseTools {
  @McpTool({
    name: 'release',
    description: 'Releases a version of a service; hosts with MCP Apps show it on the release board',
    input: {
      type: 'object',
      properties: { service: { type: 'string' }, version: { type: 'string' } },
      required: ['service', 'version'],
    },
    app: { view: 'ui://releases/board' },
    companionPrompt: {
      name: 'plan_release',
      title: 'Plan a release',
      render: (tool) => `Check the service's health first, then release it with ${tool} and watch the board.`,
    },
  })
  release(@McpArgs('service') service: string, @McpArgs('version') version: string) {
    releases.set(service, { version, done: 3, of: 3 });
    // Text for the model (and hosts without MCP Apps), structured data for the view.
    return {
      content: [{ type: 'text', text: `${service} ${version} is released.` }],
      structuredContent: { service, version },
    };
  }
  // #endregion docs:tool-with-view

  // #region docs:app-only-tool
  @McpScopes('releases:read') // visibility is no access control: scopes and guards are
  @McpTool({
    name: 'release_status',
    description: 'Where the release of a service stands (for the release board)',
    input: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    app: { visibility: ['app'] },
  })
  releaseStatus(@McpArgs('service') service: string) {
    return releases.get(service) ?? { version: 'none', done: 0, of: 0 };
  }
  // #endregion docs:app-only-tool
}
