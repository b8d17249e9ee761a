import { describe, expect, it } from 'vitest';
import { declaresApps, keptAppsExtension, withAppsExtension } from './apps-capability.util.js';

const UI = 'io.modelcontextprotocol/ui';

describe('the client side of the MCP Apps extension', () => {
  it('is declared only with the MCP Apps MIME type among mimeTypes', () => {
    expect(declaresApps({ extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } })).toBe(true);
    expect(declaresApps({ extensions: { [UI]: {} } })).toBe(false);
    expect(declaresApps({ extensions: { [UI]: { mimeTypes: ['text/html'] } } })).toBe(false);
    expect(declaresApps({ extensions: { [UI]: true } })).toBe(false);
    expect(declaresApps({})).toBe(false);
    expect(declaresApps(undefined)).toBe(false);
  });

  it('is kept for a session as a fresh bounded object', () => {
    const declared = {
      extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app', 'x'.repeat(1000)], extra: {} } },
    };
    expect(keptAppsExtension(declared)).toEqual({ [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } });
    expect(keptAppsExtension({})).toBeUndefined();
  });

  it('is added to capabilities by withAppsExtension', () => {
    expect(withAppsExtension({ elicitation: {}, extensions: { other: {} } })).toEqual({
      elicitation: {},
      extensions: { other: {}, [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } },
    });
    expect(declaresApps(withAppsExtension())).toBe(true);
  });
});
