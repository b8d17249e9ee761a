import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpTool, McpToolContext } from 'nest-mcp';

@Injectable()
export class PageTools {
  // #region docs:fetch-page
  @McpTool({
    description: 'Fetches a page',
    input: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] },
  })
  async fetchPage(@McpArgs('url') url: string, @McpCtx() ctx: McpToolContext) {
    const response = await fetch(url, { signal: ctx.signal });
    return (await response.text()).slice(0, 10_000);
  }
  // #endregion docs:fetch-page
}
