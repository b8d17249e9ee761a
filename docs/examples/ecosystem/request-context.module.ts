import { type CanActivate, type ExecutionContext, Injectable, Logger, Module, UseGuards } from '@nestjs/common';
import { CLS_ID, ClsModule, ClsService } from 'nestjs-cls';
import { McpForm, McpInput, McpModule, type McpModuleOptions, McpTool, type McpToolContext } from 'nest-mcp';

/** What an audited action records: read from the request context, as the service does when a controller calls it. */
export interface AuditRecord {
  action: string;
  by: string;
  requestId: string | undefined;
  traceId: string | undefined;
}

// #region docs:cls-service
/** An existing service that reads the request context; it knows nothing of MCP. */
@Injectable()
export class AuditService {
  private readonly logger = new Logger(AuditService.name);
  readonly records: AuditRecord[] = [];

  constructor(private readonly cls: ClsService) {}

  record(action: string): AuditRecord {
    const record = {
      action,
      by: this.cls.get<string | undefined>('principal') ?? 'anonymous',
      requestId: this.cls.getId(),
      traceId: this.cls.get<string | undefined>('traceId'),
    };
    this.records.push(record);
    this.logger.log(`${record.by} ${action}`);
    return record;
  }
}
// #endregion docs:cls-service

/** A guard that reads the context too: `aroundHandler` runs around the whole pipeline, guards included. */
@Injectable()
export class NoGuestsGuard implements CanActivate {
  constructor(private readonly cls: ClsService) {}

  canActivate(_context: ExecutionContext): boolean {
    return this.cls.get('principal') !== 'guest';
  }
}

const ConfirmForm = McpForm.object({ confirm: McpForm.boolean({ title: 'Go on?' }) });

@Injectable()
export class AuditedTools {
  constructor(private readonly audit: AuditService) {}

  @UseGuards(NoGuestsGuard)
  @McpTool({
    name: 'delete_sku',
    description: 'Deletes a SKU',
    input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  })
  deleteSku(args: { sku: string }) {
    return { ...this.audit.record(`deleted ${args.sku}`) };
  }

  /** A task: its rounds run later, in the background, with the same context. */
  @McpTool({ name: 'reindex', description: 'Reindexes the catalog in the background', task: 'required' })
  async reindex(_args: unknown, ctx: McpToolContext) {
    this.audit.record('reindex asked');
    await ctx.elicit('go', McpInput.form('Reindex everything?', ConfirmForm));
    return { ...this.audit.record('reindexed') };
  }
}

// #region docs:cls-module
@Module({
  imports: [
    // As in any Nest app: the middleware sets the context of HTTP routes (MCP's own endpoint included).
    ClsModule.forRoot({ global: true, middleware: { mount: true, generateId: true } }),
    McpModule.forRootAsync({
      inject: [ClsService],
      useFactory: (cls: ClsService): McpModuleOptions => ({
        name: 'catalog',
        version: '1.0.0',
        principal: (request) => (request as { headers: Record<string, string | undefined> }).headers['x-user'],
        tasks: { pollIntervalMs: 20 },
        // Every MCP call and task round, on every transport, runs in a context that holds its caller.
        aroundHandler: (call, run) =>
          cls.run({ ifNested: 'inherit' }, () => {
            cls.setIfUndefined(CLS_ID, String(call.requestId));
            cls.set('principal', call.principal);
            cls.set('traceId', call.traceIds?.traceId);
            return run();
          }),
      }),
    }),
  ],
  providers: [AuditService, NoGuestsGuard, AuditedTools],
})
export class AuditedAppModule {}
// #endregion docs:cls-module
