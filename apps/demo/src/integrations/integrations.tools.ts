import { Injectable } from '@nestjs/common';
import { McpCtx, McpInput, McpTool, McpToolContext } from 'nest-mcp';
import { OPS_WRITE, OpsScopes } from '../access/index.js';
import { PagerDutyConnection } from './pagerduty-connection.service.js';
import { PAGERDUTY_SIGN_IN_URL } from './pagerduty.constants.js';

/** Links to third-party services, signed in through the user's browser (URL-mode elicitation). */
@Injectable()
@OpsScopes(OPS_WRITE)
export class IntegrationsTools {
  constructor(private readonly pagerDuty: PagerDutyConnection) {}

  @McpTool({
    name: 'connect_pagerduty',
    title: 'Connect PagerDuty',
    description:
      'Links the console to PagerDuty so incidents can page the owning team. The user signs in to PagerDuty in their browser.',
    annotations: { openWorldHint: true },
  })
  async connectPagerDuty(@McpCtx() ctx: McpToolContext): Promise<string> {
    if (this.pagerDuty.status === 'connected') return 'PagerDuty is already connected.';
    // A client that cannot open URLs for the user still gets a way forward: the link, to pass on.
    if (!ctx.canElicit('url')) {
      return `This client cannot open the sign-in page itself. Ask the user to open ${PAGERDUTY_SIGN_IN_URL} and sign in to PagerDuty.`;
    }
    const answer = await ctx.elicit(
      'sign-in',
      McpInput.url('Sign in to PagerDuty to let the ops console page on-call teams.', PAGERDUTY_SIGN_IN_URL),
    );
    if (answer.action !== 'accept') return 'PagerDuty stays disconnected: the user did not open the sign-in page.';
    this.pagerDuty.signingIn();
    return 'The PagerDuty sign-in page is open in the browser; the link is ready once the user has signed in.';
  }
}
