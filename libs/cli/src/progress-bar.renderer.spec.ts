import { describe, expect, it } from 'vitest';
import { ProgressBarRenderer } from './progress-bar.renderer.js';

class Screen {
  written = '';
  constructor(readonly columns?: number) {}
  write(chunk: string) {
    this.written += chunk;
  }
}

describe('ProgressBarRenderer', () => {
  it('draws a bar with percentage and message, redrawn in place on one line', () => {
    const screen = new Screen(80);
    const bar = new ProgressBarRenderer(screen, 'count');
    bar.report(1, 4, 'counted 1 of 4');
    bar.report(2, 4, 'counted 2 of 4');
    expect(screen.written).toBe(
      '\x1b[?25l\r\x1b[2Kcount [████████░░░░░░░░░░░░░░░░░░░░░░]  25% counted 1 of 4' +
        '\r\x1b[2Kcount [███████████████░░░░░░░░░░░░░░░]  50% counted 2 of 4',
    );
    expect(screen.written).not.toContain('\n');
  });

  it("shows the server's control characters escaped: the message can neither move the cursor nor break the line", () => {
    const screen = new Screen(200);
    const bar = new ProgressBarRenderer(screen, 'job\x1b[2J');
    bar.report(1, 2, 'a\x1b]52;c;aGk=\x07 b\r\x1b[3A c\u009b2J d\u202e e\nf');
    expect(screen.written).toBe(
      '\x1b[?25l\r\x1b[2Kjob\\x1b[2J [███████████████░░░░░░░░░░░░░░░]  50% a\\x1b]52;c;aGk=\\x07 b \\x1b[3A c\\x9b2J d\\u202e e f',
    );
  });

  it('spins without a total, and keeps the line within the terminal width', () => {
    const screen = new Screen(30);
    const bar = new ProgressBarRenderer(screen, 'job');
    expect(bar.line(7, undefined, 'a rather long message that will not fit on the line')).toMatch(
      /^⠋ job 7 a rather long mes.*…$/,
    );
    expect([...bar.line(7, undefined, 'x'.repeat(100))].length).toBeLessThanOrEqual(29);
    // the spinner moves on at every value
    expect(bar.line(0.25, undefined, undefined)).toBe('⠹ job 0.25');
  });

  it('clears its line before other output, and shows the cursor again at the end', () => {
    const screen = new Screen(80);
    const bar = new ProgressBarRenderer(screen, 't');
    bar.suspend();
    expect(screen.written).toBe('');
    bar.report(1, 2, undefined);
    screen.written = '';
    bar.suspend();
    bar.suspend();
    bar.finish();
    expect(screen.written).toBe('\r\x1b[2K\x1b[?25h');
  });

  it('caps the bar at 100% when progress passes the total', () => {
    expect(new ProgressBarRenderer(new Screen(80), 't').line(5, 4, undefined)).toContain('100%');
  });
});
