// #region docs:calculator-tools
// src/calculator.tools.ts
import { Injectable } from '@nestjs/common';
import { IsInt } from 'class-validator';
import { McpArgs, McpTool } from 'nest-mcp';

export class AddDto {
  @IsInt() a!: number;
  @IsInt() b!: number;
}

export class SumDto {
  @IsInt() sum!: number;
}

@Injectable()
export class CalculatorTools {
  @McpTool({ description: 'Adds two integers', input: AddDto, output: SumDto, annotations: { readOnlyHint: true } })
  add(@McpArgs() { a, b }: AddDto): SumDto {
    return { sum: a + b };
  }
}
// #endregion docs:calculator-tools
