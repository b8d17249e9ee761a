import { useState } from 'preact/hooks';
import type { InputPrompt } from '../app/input.prompt.js';
import type { JsonValue } from '../protocol/wire.types.js';
import { initialValue, isSchema } from '../schema/json-schema.util.js';
import { SchemaForm } from '../schema/schema-form.js';

/**
 * The input requests of a round or a task, answered in the page: form elicitations as forms built from their
 * `requestedSchema`, URL elicitations as a link the user opens (accept) or declines; anything else as JSON typed by
 * hand. One submit answers every request of the round.
 */
export function InputForm({ prompt }: { prompt: InputPrompt }) {
  const entries = Object.entries(prompt.requests);
  const [answers, setAnswers] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(entries.map(([key, request]) => [key, initialAnswer(request.method, request.params)])),
  );
  const set = (key: string, answer: unknown) => setAnswers((old) => ({ ...old, [key]: answer }));
  const answerAll = (action: 'decline' | 'cancel') =>
    prompt.submit(Object.fromEntries(entries.map(([key]) => [key, { action }])));
  return (
    <form
      class="input-form"
      data-testid="input-form"
      onSubmit={(event) => {
        event.preventDefault();
        prompt.submit(answers);
      }}
    >
      <h4>The server asks</h4>
      {entries.map(([key, request]) => (
        <div class="input-request" key={key} data-input-key={key}>
          {request.method === 'elicitation/create' && request.params.mode === 'url' ? (
            <UrlStep params={request.params} onAnswer={(answer) => set(key, answer)} answer={answers[key]} />
          ) : request.method === 'elicitation/create' ? (
            <>
              <p class="message">{String(request.params.message ?? '')}</p>
              <SchemaForm
                id={`input-${key}`}
                schema={isSchema(request.params.requestedSchema) ? request.params.requestedSchema : {}}
                value={(answers[key] as { content?: JsonValue }).content}
                onChange={(content) => set(key, { action: 'accept', content: content ?? {} })}
              />
            </>
          ) : (
            <RawAnswer method={request.method} params={request.params} onAnswer={(answer) => set(key, answer)} />
          )}
        </div>
      ))}
      <div class="buttons">
        <button type="submit" class="primary">
          Send answers
        </button>
        <button type="button" onClick={() => answerAll('decline')}>
          Decline
        </button>
        <button type="button" onClick={() => answerAll('cancel')}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function initialAnswer(method: string, params: Record<string, unknown>): unknown {
  if (method !== 'elicitation/create') return {};
  if (params.mode === 'url') return { action: 'decline' };
  return { action: 'accept', content: initialValue(params.requestedSchema) ?? {} };
}

/** A URL step: the server wants the user to open a page; accepting opens it in a new tab. */
function UrlStep({
  params,
  answer,
  onAnswer,
}: {
  params: Record<string, unknown>;
  answer: unknown;
  onAnswer: (answer: unknown) => void;
}) {
  const url = String(params.url ?? '');
  const safe = /^https?:\/\//i.test(url);
  const opened = (answer as { action?: string }).action === 'accept';
  return (
    <div class="url-step">
      <p class="message">{String(params.message ?? '')}</p>
      <p>
        <code class="url">{url}</code>
      </p>
      <button
        type="button"
        disabled={!safe}
        onClick={() => {
          window.open(url, '_blank', 'noopener,noreferrer');
          onAnswer({ action: 'accept' });
        }}
      >
        {opened ? 'Opened' : 'Open the page'}
      </button>
      {!safe && <small class="problem">Not an http(s) URL: not opened.</small>}
    </div>
  );
}

/** An input request the page has no form for (sampling, roots): its answer is typed as JSON. */
function RawAnswer({
  method,
  params,
  onAnswer,
}: {
  method: string;
  params: Record<string, unknown>;
  onAnswer: (answer: unknown) => void;
}) {
  const [problem, setProblem] = useState<string>();
  return (
    <div class="raw-answer">
      <p>
        <code>{method}</code>
      </p>
      <pre class="json">{JSON.stringify(params, null, 2)}</pre>
      <textarea
        class="json"
        rows={4}
        placeholder="The answer, as JSON"
        onInput={(event) => {
          try {
            onAnswer(JSON.parse(event.currentTarget.value));
            setProblem(undefined);
          } catch (error) {
            setProblem((error as Error).message);
          }
        }}
      />
      {problem && <small class="problem">{problem}</small>}
    </div>
  );
}
