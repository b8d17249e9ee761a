import { Store } from '../app/store.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './wire.types.js';

/** One message of an exchange, in the order it crossed the wire. */
export interface ExchangeMessage {
  readonly direction: 'sent' | 'received';
  readonly at: number;
  readonly message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
}

/** One HTTP exchange: the request, what came back (JSON or each SSE event), and how it ended. */
export interface Exchange {
  readonly seq: number;
  readonly method: string;
  readonly messages: readonly ExchangeMessage[];
  readonly httpStatus?: number;
  readonly contentType?: string;
  readonly state: 'open' | 'done' | 'failed' | 'aborted';
  readonly problem?: string;
}

/** Keeps the latest exchanges, newest first, for the raw JSON-RPC panel. */
export class ExchangeLog {
  static readonly LIMIT = 200;
  readonly exchanges = new Store<readonly Exchange[]>([]);
  private seq = 0;

  open(request: JsonRpcRequest): number {
    const seq = ++this.seq;
    const exchange: Exchange = {
      seq,
      method: request.method,
      messages: [{ direction: 'sent', at: Date.now(), message: request }],
      state: 'open',
    };
    this.exchanges.update((list) => [exchange, ...list].slice(0, ExchangeLog.LIMIT));
    return seq;
  }

  answered(seq: number, httpStatus: number, contentType: string): void {
    this.patch(seq, (exchange) => ({ ...exchange, httpStatus, contentType }));
  }

  received(seq: number, message: ExchangeMessage['message']): void {
    this.patch(seq, (exchange) => ({
      ...exchange,
      messages: [...exchange.messages, { direction: 'received', at: Date.now(), message }],
    }));
  }

  close(seq: number, state: Exchange['state'], problem?: string): void {
    this.patch(seq, (exchange) => ({ ...exchange, state, ...(problem !== undefined && { problem }) }));
  }

  private patch(seq: number, change: (exchange: Exchange) => Exchange): void {
    this.exchanges.update((list) => list.map((exchange) => (exchange.seq === seq ? change(exchange) : exchange)));
  }
}
