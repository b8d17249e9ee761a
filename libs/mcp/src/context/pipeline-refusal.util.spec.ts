import { BadRequestException, HttpException, ServiceUnavailableException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { McpLocalResponse } from './local-response.js';
import { pipelineRefusal } from './pipeline-refusal.util.js';

describe('pipelineRefusal', () => {
  it('turns a 429 into -32603 with HTTP 429 and the largest Retry-After the enhancer set', () => {
    const response = new McpLocalResponse()
      .header('Retry-After-short', 3)
      .header('Retry-After', '12')
      .header('X-RateLimit-Limit', 5);
    const refusal = pipelineRefusal(new HttpException('ThrottlerException: Too Many Requests', 429), response);
    expect(refusal).toMatchObject({
      code: -32603,
      httpStatus: 429,
      message: 'ThrottlerException: Too Many Requests',
      data: { retryAfterSeconds: 12 },
    });
  });

  it('says 1 second when nothing said when to retry, and keeps a 503', () => {
    expect(pipelineRefusal(new ServiceUnavailableException('store down'), undefined)).toMatchObject({
      httpStatus: 503,
      data: { retryAfterSeconds: 1 },
    });
    expect(
      pipelineRefusal(new HttpException('slow down', 429), { getHeaders: () => ({ 'retry-after': 'soon' }) }),
    ).toMatchObject({ data: { retryAfterSeconds: 1 } });
  });

  it('leaves every other error alone', () => {
    expect(pipelineRefusal(new BadRequestException('no'), new McpLocalResponse())).toBeUndefined();
    expect(pipelineRefusal(new Error('boom'), new McpLocalResponse())).toBeUndefined();
  });
});
