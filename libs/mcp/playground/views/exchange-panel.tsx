import { useStore } from '../app/store.js';
import type { ExchangeLog } from '../protocol/exchange.log.js';

/** Every exchange with the endpoint, newest first: each JSON-RPC message as it crossed the wire. */
export function ExchangePanel({ log }: { log: ExchangeLog }) {
  const exchanges = useStore(log.exchanges);
  return (
    <div class="exchanges" data-testid="exchanges">
      {exchanges.length === 0 && <p class="hint">Nothing sent yet.</p>}
      {exchanges.map((exchange) => (
        <details key={exchange.seq} class={`exchange state-${exchange.state}`} data-method={exchange.method}>
          <summary>
            <span class="seq">#{exchange.seq}</span> <strong>{exchange.method}</strong>{' '}
            <span class="meta">
              {exchange.httpStatus !== undefined && `HTTP ${exchange.httpStatus}`} {exchange.contentType?.split(';')[0]}{' '}
              · {exchange.messages.length} message
              {exchange.messages.length === 1 ? '' : 's'} · {exchange.state}
            </span>
          </summary>
          {exchange.problem && <p class="problem">{exchange.problem}</p>}
          {exchange.messages.map((entry, index) => (
            <div key={index} class={`wire ${entry.direction}`}>
              <span class="direction">{entry.direction === 'sent' ? '→' : '←'}</span>
              <pre class="json">{JSON.stringify(entry.message, null, 2)}</pre>
            </div>
          ))}
        </details>
      ))}
    </div>
  );
}
