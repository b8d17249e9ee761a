// #region docs:standard-schema
import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp';
import { z } from 'zod';

const Forecast = z.object({ city: z.string().min(1), days: z.number().int().max(7).default(3) });

@Injectable()
export class WeatherTools {
  @McpTool({ description: 'Weather forecast', input: Forecast })
  forecast(@McpArgs() { city, days }: z.output<typeof Forecast>) {
    return `${days}-day forecast for ${city}`;
  }
}
// #endregion docs:standard-schema
