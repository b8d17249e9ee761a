/** Where the splitter delivers what it found. */
export interface LineSink {
  /** A complete line: UTF-8 decoded, without its `\n` or `\r\n`, never blank. */
  line(text: string): void;
  /** A line longer than the bound was skipped (its bytes are not kept). */
  oversized(): void;
}

/**
 * Cuts a byte stream into newline-delimited messages (stdio framing; spec 2026-07-28: basic/transports/stdio).
 * Bytes are gathered before decoding, so a multi-byte character split across chunks survives; a line longer than
 * `maxLineBytes` is dropped as it arrives, so a client that never sends `\n` cannot grow memory without bound.
 */
export class NdjsonLineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer, sink: LineSink): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      this.append(chunk.subarray(start, newline));
      this.emit(sink);
      start = newline + 1;
    }
    this.append(chunk.subarray(start));
  }

  /** The input ended: a last line without its `\n` still counts. */
  end(sink: LineSink): void {
    if (this.size > 0 || this.discarding) this.emit(sink);
  }

  private append(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    if (this.size + part.length > this.maxLineBytes) {
      this.discarding = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private emit(sink: LineSink): void {
    if (this.discarding) {
      this.discarding = false;
      sink.oversized();
      return;
    }
    const text = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim().length > 0) sink.line(line);
  }
}
