import type { CliCommand } from './cli-arguments.parser.js';
import { describeLink } from './link-display.util.js';
import { escapeUnsafeJson, sanitizeTerminalText } from './terminal-text.sanitizer.js';

type Block = Record<string, any>;

/**
 * Writes a command's result to stdout: as one line of JSON for programs (`--plain`, pipes), or as text for people
 * on a terminal — tool names and descriptions, the text of content blocks, resource contents, prompt messages.
 * Everything here is the server's: in JSON no control character is left raw, and on a terminal each one is shown
 * escaped; an http(s) resource link shows the host it goes to.
 */
export function printResult(
  command: CliCommand,
  result: Record<string, any>,
  out: { write(chunk: string): unknown },
  forPeople: boolean,
): void {
  if (!forPeople) {
    out.write(`${escapeUnsafeJson(JSON.stringify(result))}\n`);
    return;
  }
  const lines: string[] = [];
  switch (command) {
    case 'tools': {
      const tools = (result.tools ?? []) as Block[];
      const width = Math.max(0, ...tools.map((tool) => String(tool.name).length));
      for (const tool of tools)
        lines.push(`${String(tool.name).padEnd(width)}  ${firstLine(tool.description ?? tool.title ?? '')}`.trimEnd());
      if (tools.length === 0) lines.push('(no tools)');
      break;
    }
    case 'call': {
      const content = (result.content ?? []) as Block[];
      for (const block of content) lines.push(describeBlock(block));
      if (content.length === 0 && result.structuredContent !== undefined)
        lines.push(JSON.stringify(result.structuredContent, null, 2));
      break;
    }
    case 'read':
      for (const contents of (result.contents ?? []) as Block[]) lines.push(describeContents(contents));
      break;
    case 'prompt':
      if (result.description) lines.push(`# ${result.description}`);
      for (const message of (result.messages ?? []) as Block[])
        lines.push(`${message.role}: ${describeBlock(message.content ?? {})}`);
      break;
    case 'events':
      if (Array.isArray(result.events) && result.cursor === undefined) {
        // The catalog: name, delivery modes, description.
        const types = result.events as Block[];
        const width = Math.max(0, ...types.map((type) => String(type.name).length));
        for (const type of types)
          lines.push(
            `${String(type.name).padEnd(width)}  [${((type.delivery ?? []) as string[]).join(', ')}]  ${firstLine(type.description ?? '')}`.trimEnd(),
          );
        if (types.length === 0) lines.push('(no event types)');
      } else {
        // One poll: its events, then where to resume.
        for (const event of (result.events ?? []) as Block[])
          lines.push(`${event.timestamp}  ${event.name}  ${event.eventId}  ${JSON.stringify(event.data)}`);
        if ((result.events ?? []).length === 0) lines.push('(no events)');
        if (result.truncated === true) lines.push('(events may have been missed before these: truncated)');
        lines.push(`cursor: ${result.cursor ?? 'null'}`);
      }
      break;
  }
  out.write(`${sanitizeTerminalText(lines.join('\n'))}\n`);
}

function describeBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `→ ${linkText(String(block.uri))}${block.name ? ` (${block.name})` : ''}`;
    case 'resource':
      return describeContents(block.resource ?? {});
    default:
      return JSON.stringify(block);
  }
}

function describeContents(contents: Block): string {
  if (typeof contents.text === 'string') return contents.text;
  return `[${contents.mimeType ?? 'binary'} ${contents.uri}, ${base64Bytes(contents.blob)} bytes]`;
}

/** An http(s) link with the host it really opens; any other URI (a resource's own scheme) as it is. */
function linkText(uri: string): string {
  return /^https?:/i.test(uri) ? describeLink(uri).text : uri;
}

function base64Bytes(data: unknown): number {
  return typeof data === 'string' ? Buffer.from(data, 'base64').length : 0;
}

function firstLine(text: string): string {
  return String(text).split('\n', 1)[0];
}
