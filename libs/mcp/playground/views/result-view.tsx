import type { FinalResult } from '../protocol/wire.types.js';
import { JsonView } from './json-view.js';

interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string; mimeType?: string };
}

/** One content block of a result: text as text, images inline (data: URLs only), links and resources by URI. */
function Block({ block }: { block: ContentBlock }) {
  switch (block.type) {
    case 'text':
      return <pre class="text">{block.text}</pre>;
    case 'image':
      return (
        <img
          class="image"
          alt="content block of the result"
          src={`data:${block.mimeType ?? 'image/png'};base64,${block.data ?? ''}`}
        />
      );
    case 'resource_link':
      return (
        <p class="link">
          Resource link: <code>{block.uri}</code> {block.name && `(${block.name})`}
        </p>
      );
    case 'resource':
      return (
        <div class="embedded">
          <code>{block.resource?.uri}</code>
          {block.resource?.text !== undefined && <pre class="text">{block.resource.text}</pre>}
        </div>
      );
    default:
      return <JsonView value={block} />;
  }
}

/** A final result: its content blocks (or messages, or contents) and, when present, its structured content. */
export function ResultView({ result }: { result: FinalResult }) {
  const content = (result.content as ContentBlock[] | undefined) ?? [];
  const messages = (result.messages as Array<{ role: string; content: ContentBlock }> | undefined) ?? [];
  const contents =
    (result.contents as Array<{ uri: string; text?: string; blob?: string; mimeType?: string }> | undefined) ?? [];
  return (
    <section class={`result${result.isError === true ? ' is-error' : ''}`} data-testid="result">
      <h4>{result.isError === true ? 'Tool error' : 'Result'}</h4>
      {content.map((block, index) => (
        <Block key={index} block={block} />
      ))}
      {messages.map((message, index) => (
        <div key={index} class="message">
          <strong>{message.role}</strong>
          <Block block={message.content} />
        </div>
      ))}
      {contents.map((item, index) => (
        <div key={index} class="embedded">
          <code>
            {item.uri} {item.mimeType && `(${item.mimeType})`}
          </code>
          {item.text !== undefined ? (
            <pre class="text">{item.text}</pre>
          ) : (
            <p>{item.blob?.length ?? 0} base64 characters</p>
          )}
        </div>
      ))}
      {result.structuredContent !== undefined && (
        <details open>
          <summary>structuredContent</summary>
          <JsonView value={result.structuredContent} />
        </details>
      )}
    </section>
  );
}
