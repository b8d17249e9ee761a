import {
  BadRequestException,
  Body,
  type CallHandler,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type NestInterceptor,
  Param,
  type PipeTransform,
  Post,
  Query,
  Req,
  UseGuards,
  UseInterceptors,
  ValidationPipe,
} from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { map, type Observable } from 'rxjs';
import { getMcpInvocationContext, McpModule, McpTool } from 'nest-mcp';

/** The body of `POST /incidents/:id/reindex`, and the arguments of the tool `reindex_incident` (with `id`). */
export class ReindexDto {
  @IsInt()
  @Min(1)
  @Max(10)
  steps!: number;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  reason?: string;
}

/** The query of `GET /incidents`, and the arguments of the tool `list_incidents`. */
export class ListIncidentsQuery {
  @IsOptional()
  @IsIn(['open', 'resolved'])
  status?: 'open' | 'resolved';
}

/** Lets only on-call engineers in: the header `x-on-call: yes` (over MCP, the header of the MCP request). */
@Injectable()
export class OnCallGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    return request.headers['x-on-call'] === 'yes';
  }
}

/** An incident id is `INC-` and digits. */
@Injectable()
export class IncidentIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value !== 'string' || !/^INC-\d{1,6}$/.test(value)) {
      throw new BadRequestException(`${JSON.stringify(value)} is not an incident id (INC-123)`);
    }
    return value;
  }
}

/** Wraps every answer of the controller in `{ data }`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<{ data: unknown }> {
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}

/** A stand-in for the incident system: what was reindexed, step by step. */
@Injectable()
export class IncidentStore {
  readonly steps: string[] = [];
  private readonly incidents = [
    { id: 'INC-1', title: 'Checkout latency', status: 'open' },
    { id: 'INC-2', title: 'Stale cache', status: 'resolved' },
  ];

  list(status?: string) {
    return this.incidents.filter((incident) => status === undefined || incident.status === status);
  }

  async reindexStep(id: string, step: number): Promise<void> {
    this.steps.push(`${id}#${step}`);
  }
}

// #region docs:route-tools
@Controller('incidents')
@UseInterceptors(EnvelopeInterceptor)
export class IncidentsController {
  constructor(private readonly incidents: IncidentStore) {}

  @Get()
  @McpTool({
    name: 'list_incidents',
    description: 'Lists incidents, optionally by status',
    annotations: { readOnlyHint: true },
  })
  list(@Query() query: ListIncidentsQuery) {
    return { incidents: this.incidents.list(query.status) };
  }

  @Post(':id/reindex')
  @UseGuards(OnCallGuard)
  @McpTool({ name: 'reindex_incident', description: 'Rebuilds the search index of one incident, step by step' })
  async reindex(@Param('id', IncidentIdPipe) id: string, @Body() body: ReindexDto, @Req() request: unknown) {
    // The MCP context when the call came through MCP; undefined over plain HTTP.
    const progress = getMcpInvocationContext(request)?.countingProgress(body.steps);
    for (let step = 1; step <= body.steps; step++) {
      await this.incidents.reindexStep(id, step);
      progress?.emit(`step ${step} of ${body.steps}`);
    }
    return { id, steps: body.steps, via: getMcpInvocationContext(request) ? 'mcp' : 'http' };
  }
}
// #endregion docs:route-tools

// #region docs:route-tools-module
@Module({
  imports: [McpModule.forRoot({ name: 'incidents', version: '1.0.0' })],
  controllers: [IncidentsController],
  providers: [
    IncidentStore,
    // Global pipes apply to both paths too.
    { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
  ],
})
export class IncidentsModule {}
// #endregion docs:route-tools-module
