import { describe, expect, it } from 'vitest';
import { splitShellWords } from './shell-words.util.js';

describe('splitShellWords', () => {
  it.each([
    ['node dist/main.js', ['node', 'dist/main.js']],
    ['  node   "my server.js"  ', ['node', 'my server.js']],
    [`node --name='a b' --x="say \\"hi\\""`, ['node', '--name=a b', '--x=say "hi"']],
    [`printf 'it''s' a\\ b`, ['printf', 'its', 'a b']],
    [`node -e "process.exit(0)" ''`, ['node', '-e', 'process.exit(0)', '']],
  ])('%s', (line, words) => {
    expect(splitShellWords(line)).toEqual(words);
  });

  it('refuses an unterminated quote', () => {
    expect(() => splitShellWords(`node "oops`)).toThrow(/unterminated double quote/);
  });
});
