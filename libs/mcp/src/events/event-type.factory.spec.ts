import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpModule } from '../mcp.module.js';
import { McpEventDefinitionError } from './event-definition.error.js';
import { createEventType } from './event-type.factory.js';
import { McpEvent } from './mcp-event.decorator.js';

const deliverAll = () => true;

describe('createEventType', () => {
  it('builds the descriptor: delivery in canonical order, {"type":"object"} schemas when none are declared, the access summary', () => {
    const entry = createEventType(
      'here',
      { name: 'a.b', delivery: ['webhook', 'poll'], description: 'd' },
      deliverAll,
      undefined,
      ['s:read'],
    );
    expect(entry.definition).toEqual({
      name: 'a.b',
      description: 'd',
      delivery: ['poll', 'webhook'],
      inputSchema: { type: 'object' },
      payloadSchema: { type: 'object' },
    });
    expect(entry.summary).toEqual({ kind: 'event', name: 'a.b', scopes: ['s:read'] });
    expect(entry.retention).toEqual({ windowMs: 600_000, maxEvents: 10_000 });
  });

  it.each([
    ['an empty delivery (a defect the draft conformance suite caught)', { name: 'x', delivery: [] }, /non-empty/],
    ['an unknown mode', { name: 'x', delivery: ['email'] }, /unknown delivery mode/],
    ['poll without replay', { name: 'x', delivery: ['poll'], replay: false }, /needs replay/],
    ['a name with a space', { name: 'a b' }, /must be 1-128/],
    ['a name of 129 characters', { name: 'a'.repeat(129) }, /must be 1-128/],
    ['a reserved mcp. name', { name: 'mcp.task.updated' }, /reserved/],
    ['a replay window of 0', { name: 'x', replay: { windowMs: 0 } }, /windowMs/],
    ['an input schema that is not an object schema', { name: 'x', input: { type: 'string' } }, /object/],
    ['an authorize method that does not exist', { name: 'x', authorize: 'nope' }, /authorize/],
  ])('refuses %s', (_what, options, problem) => {
    expect(() => createEventType('Where.method', options as never, deliverAll)).toThrow(McpEventDefinitionError);
    expect(() => createEventType('Where.method', options as never, deliverAll)).toThrow(problem);
  });
});

describe('McpEventsExplorer at bootstrap', () => {
  const boot = async (provider: Function) => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'x', version: '1' })],
      providers: [provider as never],
    }).compile();
    try {
      await moduleRef.init();
    } finally {
      await moduleRef.close();
    }
  };

  it('refuses a name declared twice, naming the method', async () => {
    @Injectable()
    class Twice {
      @McpEvent({ name: 'same' })
      one() {}
      @McpEvent({ name: 'same' })
      two() {}
    }
    await expect(boot(Twice)).rejects.toThrow(/Twice\.two: the event type same is declared twice/);
  });

  it('refuses a method that is both an event type and a tool', async () => {
    @Injectable()
    class Both {
      @McpTool()
      @McpEvent()
      thing() {}
    }
    await expect(boot(Both)).rejects.toThrow(/Both\.thing: a method can be an event type or a tool/);
  });
});
