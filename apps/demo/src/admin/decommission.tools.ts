import { Injectable, UseGuards } from '@nestjs/common';
import { McpArgs, McpCtx, McpInput, McpTool, McpToolContext, McpToolError } from 'nest-mcp';
import { OPS_ADMIN, OpsAdminGuard, OpsScopes } from '../access/index.js';
import { ServiceCatalog, ServiceNameDto } from '../services/index.js';
import { DecommissionForm } from './decommission.form.js';

/**
 * The admin server's service tool (`/admin/mcp`): decommissioning deletes a service for good, so only admins get it,
 * and the user confirms by typing the service's name in a form.
 */
@Injectable()
export class DecommissionTools {
  constructor(private readonly catalog: ServiceCatalog) {}

  @OpsScopes(OPS_ADMIN)
  // #region docs:decommission
  @McpTool({
    name: 'decommission_service',
    title: 'Decommission a service',
    description:
      'Permanently removes a service and its logs from the fleet. Admins only; the user confirms by typing the ' +
      'service name in a form.',
    input: ServiceNameDto,
    annotations: { destructiveHint: true, idempotentHint: false },
  })
  @UseGuards(OpsAdminGuard)
  async decommissionService(@McpArgs('name') name: string, @McpCtx() ctx: McpToolContext): Promise<string> {
    const service = this.catalog.find(name);
    if (!service)
      throw new McpToolError(`No service named "${name}". Known services: ${this.catalog.names().join(', ')}.`);
    if (!ctx.canElicit('form')) {
      throw new McpToolError(
        `decommission_service needs the user's confirmation and this client cannot show forms; decommission ${name} from the console UI.`,
      );
    }
    // Nothing changes before this point: on the retry that carries the answer, the method runs again from the top.
    const answer = await ctx.elicit(
      'confirm',
      McpInput.form(
        `Decommission ${name}? Its ${service.replicas} replicas and its logs are deleted for good.`,
        DecommissionForm,
      ),
    );
    if (answer.action !== 'accept') return `Kept ${name}: the user did not confirm.`;
    if (answer.content.confirmName !== name)
      return `Kept ${name}: "${answer.content.confirmName}" does not match the service name.`;
    this.catalog.decommission(name);
    return `Decommissioned ${name}${answer.content.reason ? ` (${answer.content.reason})` : ''}.`;
  }
  // #endregion docs:decommission
}
