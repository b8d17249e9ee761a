import type { ProgressReporter } from './progress-reporter.interface.js';
import { sanitizeTerminalText } from './terminal-text.sanitizer.js';

const ERASE_LINE = '\r\x1b[2K';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A terminal stream: `columns` is its width when it is a TTY. */
export interface TerminalStream {
  write(chunk: string): unknown;
  columns?: number;
}

/**
 * A live progress bar on one terminal line, redrawn in place (`\r` + erase line) at every value:
 * `count [████████░░░░░░░░░░░░] 40% counted 4 of 10` with a total, a spinner and the value without one. The line is
 * cut to the terminal's width so it never wraps (a wrapped line could not be redrawn in place). The server's message
 * is shown with its control characters escaped: it can neither move the cursor nor break the line.
 */
export class ProgressBarRenderer implements ProgressReporter {
  private visible = false;
  private cursorHidden = false;
  private frame = 0;

  private readonly label: string;

  constructor(
    private readonly stream: TerminalStream,
    label: string,
  ) {
    this.label = sanitizeTerminalText(label, { multiline: false });
  }

  report(progress: number, total: number | undefined, message: string | undefined): void {
    this.write(this.line(progress, total, message));
  }

  /** A task's status on the same line: `⠋ label working: message` (the server's strings escaped). */
  reportStatus(_taskId: string, status: string, message: string | undefined): void {
    this.write(
      this.fit(
        `${SPINNER[this.frame++ % SPINNER.length]} ${this.label} ${sanitizeTerminalText(status, { multiline: false })}${message ? `: ${clean(message)}` : ''}`,
      ),
    );
  }

  suspend(): void {
    if (!this.visible) return;
    this.stream.write(ERASE_LINE);
    this.visible = false;
  }

  finish(): void {
    this.suspend();
    if (this.cursorHidden) this.stream.write(SHOW_CURSOR);
    this.cursorHidden = false;
  }

  /** The text of the bar for these values (no control sequences). */
  line(progress: number, total: number | undefined, message: string | undefined): string {
    const columns = Math.max(20, (this.stream.columns ?? 80) - 1);
    let text: string;
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, Math.max(0, progress / total));
      const width = Math.max(10, Math.min(30, columns - this.label.length - 20));
      const filled = Math.round(fraction * width);
      text = `${this.label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
    } else {
      text = `${SPINNER[this.frame++ % SPINNER.length]} ${this.label} ${formatValue(progress)}`;
    }
    if (message) text += ` ${clean(message)}`;
    return this.fit(text);
  }

  /** Redraws the line in place. */
  private write(line: string): void {
    this.stream.write(`${this.cursorHidden ? '' : HIDE_CURSOR}${ERASE_LINE}${line}`);
    this.cursorHidden = true;
    this.visible = true;
  }

  /** `text` cut to the terminal's width, so it never wraps (a wrapped line could not be redrawn in place). */
  private fit(text: string): string {
    const columns = Math.max(20, (this.stream.columns ?? 80) - 1);
    const chars = [...text];
    return chars.length > columns ? `${chars.slice(0, columns - 1).join('')}…` : text;
  }
}

/** A server string on one line, its control characters escaped. */
function clean(text: string): string {
  return sanitizeTerminalText(text.replace(/\s+/g, ' '), { multiline: false });
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
