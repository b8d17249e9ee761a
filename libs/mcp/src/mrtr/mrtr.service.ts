import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { createHash } from 'node:crypto';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';
import { AnswerLedger } from './answer-ledger.js';
import { InMemoryRequestStateStore } from './in-memory-request-state.store.js';
import { RequestStateCodec } from './request-state.codec.js';
import { taskRoundState } from './task-round-state.js';
import type { RequestStatePayload } from './request-state.interface.js';
import type {
  McpHeldRoundAnswers,
  McpHeldRoundEnd,
  McpRoundAnswers,
  McpRoundContext,
  McpRoundEnd,
  McpRoundRequests,
  McpSealedRoundAnswers,
  McpSealedRoundEnd,
} from './mrtr-round.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import { canonicalJson } from '../protocol/canonical-json.util.js';
import { callerKey } from '../protocol/admission-quota.js';
import { echoed } from '../protocol/echo.util.js';

/**
 * What this service needs of `McpTelemetry`, spelled structurally: the published declarations must not reach
 * `@opentelemetry/api` (an optional peer) through this constructor.
 */
interface RoundMarker {
  markRound(round: number): void;
}

/**
 * The round-trip bookkeeping of `tools/call`, `prompts/get` and `resources/read` (spec 2026-07-28:
 * basic/patterns/mrtr): opens the retry's `requestState`, checks that it belongs to this request and caller and is
 * fresh, merges the new answers, and — when the handler asked for more — builds the `input_required` result with a
 * newly sealed state.
 */
@Injectable()
export class McpMrtrService {
  /** Where used states are recorded when `requestState.singleUse` is on. */
  private readonly store?: McpRequestStateStore;

  constructor(
    private readonly codec: RequestStateCodec,
    private readonly options: McpResolvedOptions,
    @Optional() @Inject(McpTelemetry) private readonly telemetry: RoundMarker = McpTelemetry.OFF,
  ) {
    const singleUse = options.requestStateSingleUse;
    this.store = singleUse === true ? new InMemoryRequestStateStore() : singleUse;
  }

  /**
   * The answers this call has. Malformed `inputResponses` or a state that does not verify → `-32602`. A Promise only
   * when a single-use store must record the state (`requestState.singleUse`); a first round never waits.
   */
  begin(scope: McpRequestScope, target: string): AnswerLedger | Promise<AnswerLedger> {
    const { inputResponses, requestState } = scope.params;
    if (inputResponses !== undefined && !isJsonObject(inputResponses)) {
      throw McpError.invalidParams('Invalid params: inputResponses must be an object');
    }
    const responses = inputResponses ?? {};
    for (const [key, value] of Object.entries(responses)) {
      if (!isJsonObject(value))
        throw McpError.invalidParams(`Invalid params: inputResponses["${echoed(key)}"] must be an object`);
    }
    if (requestState === undefined) {
      // A task's round carries no requestState: its handler state comes from the task record (through the worker).
      if (!scope.task) this.telemetry.markRound(1);
      return new AnswerLedger(new Map(Object.entries(responses)), taskRoundState(scope.task)?.handlerState);
    }
    const opened = this.codec.openState(requestState);
    const state = this.verify(opened.payload, scope, target);
    const answers = new Map(Object.entries(state.a));
    const round = (typeof state.r === 'number' && Number.isSafeInteger(state.r) && state.r > 0 ? state.r : 1) + 1;
    this.telemetry.markRound(round);
    // Only answers to what the last round asked are taken; extra keys are ignored (spec 2026-07-28:
    // basic/patterns/mrtr, "Error Handling").
    for (const key of state.p) {
      if (Object.hasOwn(responses, key)) answers.set(key, responses[key]);
    }
    const store = this.store;
    if (!store) return new AnswerLedger(answers, state.s, round);
    // Recorded only once every check passed, so a refused state does not take a slot; before the handler runs.
    const caller = callerKey({ principal: scope.principal, address: scope.remoteAddress });
    return Promise.resolve(store.consume(opened.id, state.iat + this.options.requestStateTtlMs, caller)).then(
      (fresh) => {
        if (fresh !== true) {
          throw McpError.invalidParams(
            'Invalid requestState: this requestState was already used (states are single-use); start the call again without it',
          );
        }
        return new AnswerLedger(answers, state.s, round);
      },
    );
  }

  /**
   * One round of a handler (ADR 0003), the one place that opens its answers, opens its context, runs it and completes
   * it: the answers come from the call (`{ from: 'request' }`: `begin`, then `finish` seals what it asked) or from
   * the caller (`{ from: 'held' }`: a 2025-11-25 `beforeTask` asking live, which gets the requests back). Refusals of
   * `begin` (`-32602`) are thrown before the context is opened; what the handler throws is in the end.
   */
  round<C extends McpRoundContext>(
    answers: McpSealedRoundAnswers,
    open: (ledger: AnswerLedger) => C,
    run: (context: C) => unknown,
  ): Promise<McpSealedRoundEnd<C>>;
  round<C extends McpRoundContext>(
    answers: McpHeldRoundAnswers,
    open: (ledger: AnswerLedger) => C,
    run: (context: C) => unknown,
  ): Promise<McpHeldRoundEnd<C>>;
  async round<C extends McpRoundContext>(
    answers: McpRoundAnswers,
    open: (ledger: AnswerLedger) => C,
    run: (context: C) => unknown,
  ): Promise<McpRoundEnd<C, JsonObject | McpRoundRequests>> {
    const begun =
      answers.from === 'request'
        ? this.begin(answers.scope, answers.target)
        : new AnswerLedger(new Map(answers.answers));
    // Awaited only when a single-use store records the state: the plain path keeps no extra await.
    const ledger = begun instanceof Promise ? await begun : begun;
    const context = open(ledger);
    let value: unknown;
    let threw = false;
    let error: unknown;
    try {
      value = await run(context);
    } catch (caught) {
      threw = true;
      error = caught;
    } finally {
      context.complete();
    }
    if (answers.from === 'request') {
      const inputRequired = this.finish(ledger, answers.scope, answers.target);
      if (inputRequired) return { kind: 'input_required', asked: inputRequired, ledger, context };
    } else if (ledger.hasPending) {
      return { kind: 'input_required', asked: ledger.pendingRequests(), ledger, context };
    }
    return threw ? { kind: 'threw', error, ledger, context } : { kind: 'returned', value, ledger, context };
  }

  /** The `input_required` result when the handler asked for input this round, else undefined. */
  finish(ledger: AnswerLedger, scope: McpRequestScope, target: string): JsonObject | undefined {
    if (!ledger.hasPending) return undefined;
    taskRoundState(scope.task)?.keepHandlerState(ledger.state);
    const inputRequests: JsonObject = {};
    for (const [key, request] of ledger.pendingRequests()) {
      inputRequests[key] =
        request.params === undefined ? { method: request.method } : { method: request.method, params: request.params };
    }
    const payload: RequestStatePayload = {
      m: scope.method,
      t: target,
      d: paramsDigest(scope.params),
      a: ledger.acceptedAnswers(),
      p: [...ledger.pendingRequests().keys()],
      iat: Date.now(),
      r: ledger.round,
      ...(scope.principal !== undefined && { sub: scope.principal }),
      ...(ledger.state !== undefined && { s: ledger.state }),
    };
    return { resultType: 'input_required', inputRequests, requestState: this.codec.seal(payload) };
  }

  private verify(opened: unknown, scope: McpRequestScope, target: string): RequestStatePayload {
    const state = opened as RequestStatePayload;
    if (!isJsonObject(state) || !isJsonObject(state.a) || !Array.isArray(state.p) || typeof state.iat !== 'number') {
      throw McpError.invalidParams('Invalid requestState: malformed');
    }
    if (state.m !== scope.method || state.t !== target || state.d !== paramsDigest(scope.params)) {
      throw McpError.invalidParams('Invalid requestState: it belongs to another request');
    }
    if (state.sub !== scope.principal) {
      throw McpError.invalidParams('Invalid requestState: it belongs to another caller');
    }
    const age = Date.now() - state.iat;
    if (age > this.options.requestStateTtlMs || age < -60_000) {
      throw McpError.invalidParams('Invalid requestState: expired');
    }
    return state;
  }
}

/** A stable digest of the request's own params: what the round trip must not change. */
export function paramsDigest(params: JsonObject): string {
  const { _meta: _ignoredMeta, inputResponses: _ignoredResponses, requestState: _ignoredState, ...salient } = params;
  // Absent, null and empty arguments mean the same call.
  const args = salient.arguments;
  if (args === null || (typeof args === 'object' && !Array.isArray(args) && Object.keys(args).length === 0))
    delete salient.arguments;
  return createHash('sha256').update(canonicalJson(salient)).digest('base64url');
}
