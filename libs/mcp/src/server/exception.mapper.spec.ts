import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  Logger,
} from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { noteNestLogged } from '../context/handler-errors.util.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { protocolFailure, toolFailure } from './exception.mapper.js';
import { McpToolError } from './mcp-tool.error.js';

/** A logger that keeps what was logged as errors, with the stack it was given. */
class RecordingLogger extends Logger {
  readonly errors: { message: string; stack: unknown }[] = [];
  override error(message: unknown, stack?: unknown): void {
    this.errors.push({ message: String(message), stack });
  }
}

function secretFailure(): Error {
  const error = new Error('password=hunter2 at db.internal:5432');
  error.stack = `Error: password=hunter2\n    at connect (/srv/app/db.ts:12:7)`;
  return error;
}

describe('toolFailure (a tool that threw → isError text, or the protocol error to answer)', () => {
  it('keeps an McpError a protocol error, as is', () => {
    const error = McpError.invalidParams('Unknown region', { region: 'mars' });
    expect(toolFailure(error, new RecordingLogger(), 'deploy')).toBe(error);
  });

  it("shows the messages meant for clients: McpToolError's, and those of Nest's HTTP exceptions from guards and pipes", () => {
    const logger = new RecordingLogger();
    expect(toolFailure(new McpToolError('No flight that day; try another'), logger, 'book')).toEqual({
      text: 'No flight that day; try another',
    });
    expect(toolFailure(new ForbiddenException('Only admins may deploy'), logger, 'deploy')).toEqual({
      text: 'Only admins may deploy',
    });
    // ValidationPipe: a list of messages.
    expect(toolFailure(new BadRequestException(['a must be a number', 'b is required']), logger, 'add')).toEqual({
      text: 'a must be a number; b is required',
    });
    expect(toolFailure(new HttpException('Teapot', 418), logger, 'brew')).toEqual({ text: 'Teapot' });
    expect(toolFailure(new HttpException({ reason: 'no message field' }, 409), logger, 'x')).toEqual({
      text: 'Http Exception',
    });
    expect(logger.errors).toEqual([]);
  });

  it('answers any other error with a generic text and logs it with its stack: nothing of it reaches the wire', () => {
    const logger = new RecordingLogger();
    const error = secretFailure();
    const failure = toolFailure(error, logger, 'deploy');
    expect(failure).toEqual({ text: 'Tool "deploy" failed with an internal error' });
    expect(logger.errors).toEqual([{ message: 'Tool "deploy" failed', stack: error.stack }]);
  });

  it('logs a thrown non-Error by its string form, and does not log again what Nest already logged', () => {
    const logger = new RecordingLogger();
    expect(toolFailure('plain string', logger, 'x')).toEqual({ text: 'Tool "x" failed with an internal error' });
    const logged = new Error('already logged by the exception filter');
    noteNestLogged(logged);
    toolFailure(logged, logger, 'y');
    expect(logger.errors).toEqual([{ message: 'Tool "x" failed', stack: 'plain string' }]);
  });
});

describe('protocolFailure (a prompt, resource or completion handler that threw → the protocol error)', () => {
  it('keeps an McpError, and turns client errors (4xx, McpToolError) into -32602 with their message', () => {
    const logger = new RecordingLogger();
    const notFound = McpError.resourceNotFound('docs://gone');
    expect(protocolFailure(notFound, logger, 'Resource "docs://gone"')).toBe(notFound);
    const forbidden = protocolFailure(new ForbiddenException('Not yours'), logger, 'Prompt "p"');
    expect([forbidden.code, forbidden.message, forbidden.httpStatus]).toEqual([
      McpErrorCode.InvalidParams,
      'Not yours',
      200,
    ]);
    expect(protocolFailure(new BadRequestException(['x is required']), logger, 'Prompt "p"').message).toBe(
      'x is required',
    );
    expect(protocolFailure(new McpToolError('Pick a city first'), logger, 'Completion').message).toBe(
      'Pick a city first',
    );
    expect(logger.errors).toEqual([]);
  });

  it('answers server errors (5xx HTTP exceptions, anything else) with a generic -32603 and logs them', () => {
    const logger = new RecordingLogger();
    const error = secretFailure();
    const internal = protocolFailure(error, logger, 'Resource "docs://db"');
    expect([internal.code, internal.message, internal.data]).toEqual([
      McpErrorCode.InternalError,
      'Internal error',
      undefined,
    ]);
    const fiveHundred = protocolFailure(new InternalServerErrorException('db.internal is down'), logger, 'Prompt "p"');
    expect([fiveHundred.code, fiveHundred.message]).toEqual([McpErrorCode.InternalError, 'Internal error']);
    expect(logger.errors.map((entry) => entry.message)).toEqual(['Resource "docs://db" failed', 'Prompt "p" failed']);
    expect(logger.errors[0].stack).toBe(error.stack);
  });
});
