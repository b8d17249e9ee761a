// The README's 20-line example ("A tool in 20 lines"), quoted by README.md through scripts/docs-snippets.mjs.
// #region docs:readme-counter
import { Injectable, Module } from '@nestjs/common';
import { IsInt, Min } from 'class-validator';
import { McpArgs, McpCtx, McpModule, McpTool, McpToolContext } from 'nest-mcp';

class CountDto {
  @IsInt() @Min(1) to!: number;
}

@Injectable()
export class CounterTools {
  @McpTool({ description: 'Counts up to a number, reporting progress', input: CountDto })
  async count(@McpArgs() { to }: CountDto, @McpCtx() ctx: McpToolContext) {
    const progress = ctx.countingProgress(to);
    for (let i = 0; i < to; i++) progress.emit(`counted ${i + 1}`);
    return { counted: to };
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'counter', version: '1.0.0' })], providers: [CounterTools] })
export class AppModule {}
// #endregion docs:readme-counter
