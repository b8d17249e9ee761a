import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp';

/** Searches one region's index; proxies can route on the `Mcp-Param-Region` header. */
@Injectable()
export class SearchTools {
  // #region docs:param-header
  @McpTool({
    input: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['region'],
    },
  })
  search(@McpArgs() { region, query }: { region: string; query?: string }) {
    return `results for "${query ?? '*'}" in ${region}`;
  }
  // #endregion docs:param-header
}
