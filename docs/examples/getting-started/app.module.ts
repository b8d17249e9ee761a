// #region docs:app-module
// src/app.module.ts
import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { CalculatorTools } from './calculator.tools.js';

@Module({
  imports: [McpModule.forRoot({ name: 'calculator', version: '1.0.0' })],
  providers: [CalculatorTools],
})
export class AppModule {}
// #endregion docs:app-module
