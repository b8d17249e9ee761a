import {
  Body,
  Controller,
  Get,
  Headers,
  Next,
  Param,
  Post,
  Query,
  Req,
  Res,
  Sse,
  UploadedFile,
  type Type,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsInt, IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpHandlerFactory } from '../context/mcp-handler.factory.js';
import { McpArgs } from '../decorators/mcp-params.decorator.js';
import { McpPrompt } from '../decorators/mcp-prompt.decorator.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpExplorer } from './mcp.explorer.js';
import { McpRegistry } from './mcp.registry.js';

class NoteDto {
  @IsString()
  text: string;

  @IsInt()
  id: number;
}

@Controller('notes')
class Notes {
  @Post(':folder')
  @McpTool({ name: 'add_note' })
  add(
    @Param('folder') folder: string,
    @Query('draft') draft: boolean,
    @Body() note: NoteDto,
    @Req() _request: unknown,
    @Headers('x-a') _a: string,
  ) {
    return { folder, draft, note };
  }

  @Get()
  @McpTool({ name: 'count_notes' })
  count() {
    return 0;
  }

  @Get('declared')
  @McpTool({ name: 'declared', input: { type: 'object', properties: { anything: {} } } })
  declared(@Body() body: unknown) {
    return body;
  }
}

@Controller()
class WithRes {
  @Get()
  @McpTool()
  raw(@Res() _response: unknown) {}
}

@Controller()
class WithNext {
  @Get()
  @McpTool()
  chained(@Next() _next: unknown) {}
}

@Controller()
class WithUpload {
  @Post()
  @McpTool()
  upload(@UploadedFile() _file: unknown) {}
}

@Controller()
class Undecorated {
  @Get()
  @McpTool()
  bare(@Query('q') _q: string, _other: string) {}
}

@Controller()
class McpParams {
  @Get()
  @McpTool()
  mixed(@McpArgs() _args: unknown) {}
}

@Controller()
class TwoWholes {
  @Post()
  @McpTool()
  both(@Body() _body: NoteDto, @Query() _query: NoteDto) {}
}

@Controller()
class Shapeless {
  @Post()
  @McpTool()
  untyped(@Body() _body: Record<string, unknown>) {}
}

@Controller()
class Clash {
  @Post(':id')
  @McpTool()
  clash(@Param('id') _id: string, @Body() _body: NoteDto) {}
}

@Controller()
class SameName {
  @Post(':id')
  @McpTool()
  twice(@Param('id') _id: string, @Query('id') _also: string) {}
}

@Controller()
class Streams {
  @Sse('events')
  @McpTool()
  events() {}
}

@Controller()
class PromptRoute {
  @Get()
  @McpPrompt()
  brief() {}
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function explore(controllers: Type[]): Promise<McpRegistry> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers,
    providers: [
      { provide: McpResolvedOptions, useValue: new McpResolvedOptions({ name: 'srv', version: '1' }) },
      McpRegistry,
      McpMetadataAccessor,
      McpHandlerFactory,
      McpExplorer,
    ],
  })
    .setLogger(false as never)
    .compile();
  closers.push(() => moduleRef.close());
  await moduleRef.init();
  return moduleRef.get(McpRegistry);
}

describe('controller routes as tools: the input schema and the bootstrap checks', () => {
  it('derives the schema: the @Body() DTO, plus @Param as a required and @Query as an optional named argument', async () => {
    const registry = await explore([Notes]);
    const schema = registry.getTool('add_note')!.definition.inputSchema;
    expect(schema.properties).toEqual({
      text: expect.objectContaining({ type: 'string' }),
      id: expect.objectContaining({ type: 'integer' }),
      folder: { type: 'string' },
      draft: { type: 'boolean' },
    });
    expect([...(schema.required as string[])].sort()).toEqual(['folder', 'id', 'text']);
    // A route without parameters takes no arguments; a declared `input` is used as it is.
    expect(registry.getTool('count_notes')!.definition.inputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
    });
    expect(registry.getTool('declared')!.definition.inputSchema).toEqual({
      type: 'object',
      properties: { anything: {} },
    });
  });

  it.each([
    [
      WithRes,
      /^nest-mcp: WithRes\.raw: parameter 0 uses @Res\(\) \(a tool call has no HTTP response: return the value instead\)/,
    ],
    [WithNext, /^nest-mcp: WithNext\.chained: parameter 0 uses @Next\(\)/],
    [WithUpload, /^nest-mcp: WithUpload\.upload: parameter 0 uses @UploadedFile\(\)/],
    [Undecorated, /^nest-mcp: Undecorated\.bare: parameter 1 has no route decorator/],
    [
      McpParams,
      /^nest-mcp: McpParams\.mixed: MCP parameter decorators \(@McpArgs, @McpCtx, @McpHttpRequest…\) do not apply to a controller route/,
    ],
    [TwoWholes, /^nest-mcp: TwoWholes\.both: @Body\(\) and @Query\(\) both take the whole arguments object/],
    [
      Shapeless,
      /^nest-mcp: Shapeless\.untyped: @Body\(\) \(parameter 0\) has no DTO class to derive the tool's input schema from/,
    ],
    [
      Clash,
      /^nest-mcp: Clash\.clash: the argument "id" of @Param\('id'\) is also a property of the @Body\(\) DTO; rename one$/,
    ],
    [SameName, /^nest-mcp: SameName\.twice: the argument "id" is read by both @Param\('id'\) and @Query\('id'\)$/],
    [
      Streams,
      /^nest-mcp: Streams\.events: an @Sse\(\) route streams events to one HTTP client and cannot be an MCP tool$/,
    ],
    [PromptRoute, /^nest-mcp: PromptRoute\.brief: a controller route can be an MCP tool \(@McpTool\), not a prompt/],
  ])('fails bootstrap for %o, naming the method', async (controller, message) => {
    const failure = explore([controller]);
    await expect(failure).rejects.toBeInstanceOf(McpDefinitionError);
    await expect(failure).rejects.toThrow(message);
  });
});
