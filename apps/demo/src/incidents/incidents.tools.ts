import { Injectable, Logger } from '@nestjs/common';
import { McpArgs, McpCtx, McpForm, McpInput, McpTool, McpToolContext, McpToolError } from 'nest-mcp';
import { OPS_READ, OpsScopes } from '../access/index.js';
import { ServiceCatalog } from '../services/index.js';
import { DEFAULT_SEVERITY } from '../services/incident-severity.constants.js';
import { IncidentReportDto } from './dto/incident-report.dto.js';
import { INCIDENT_STEPS, IncidentInvestigation, STEPS_BEFORE_QUESTION } from './incident-investigation.service.js';

/** What `incident_report` asks halfway: whether to attach the service's recent logs. */
const IncludeLogsForm = McpForm.object({
  includeLogs: McpForm.boolean({ title: 'Attach the recent logs?', description: 'They may contain customer data' }),
});

/** Incident reports: a long job run as a task (`tasks/get` to follow it, `tasks/cancel` to stop it). */
@Injectable()
@OpsScopes(OPS_READ)
export class IncidentsTools {
  private readonly logger = new Logger('IncidentsTools');

  constructor(
    private readonly catalog: ServiceCatalog,
    private readonly investigation: IncidentInvestigation,
  ) {}

  // #region docs:incident-report-task
  @McpTool({
    name: 'incident_report',
    title: 'Write an incident report',
    description:
      'Investigates an incident on a service (alerts, logs, timeline, impact) and writes the report; takes about ten ' +
      'seconds, so it runs as a task: poll it, answer its question (whether to attach the logs), or cancel it.',
    input: IncidentReportDto,
    task: 'required',
  })
  async incidentReport(
    @McpArgs() { service: name, severity }: IncidentReportDto,
    @McpCtx() ctx: McpToolContext,
  ): Promise<string> {
    const service = this.catalog.find(name);
    if (!service)
      throw new McpToolError(`No service named "${name}". Known services: ${this.catalog.names().join(', ')}.`);
    const taskId = ctx.taskId ?? 'inline';
    const progress = ctx.percentProgress(); // in a task, each step becomes the task's statusMessage
    let includeLogs = false;
    try {
      for (const [index, step] of INCIDENT_STEPS.entries()) {
        if (index === STEPS_BEFORE_QUESTION) {
          // The task waits in input_required until tasks/update answers; the handler then replays from the top.
          const answer = await ctx.elicit(
            'include_logs',
            McpInput.form(`Attach the recent logs of ${name} to the report?`, IncludeLogsForm),
          );
          includeLogs = answer.action === 'accept' && answer.content.includeLogs;
        }
        progress.emit(index / INCIDENT_STEPS.length, `${step} (${index + 1}/${INCIDENT_STEPS.length})`);
        await this.investigation.run(taskId, index, ctx.signal); // tasks/cancel aborts ctx.signal
      }
    } finally {
      if (ctx.signal.aborted) this.investigation.forget(taskId);
    }
    this.investigation.forget(taskId);
    this.logger.log(`Incident report ${taskId} written (${name})`);
    const logs = includeLogs ? (this.catalog.logsOf(name) ?? []) : [];
    return [
      `Incident report: ${name} (${severity ?? DEFAULT_SEVERITY})`,
      `Owner: ${service.owner}. Region: ${service.region}. Version: ${service.version}. Status: ${service.status}.`,
      ...(logs.length > 0 ? ['Recent logs:', ...logs.map((line) => `  ${line}`)] : ['Logs not attached.']),
    ].join('\n');
  }
  // #endregion docs:incident-report-task
}
