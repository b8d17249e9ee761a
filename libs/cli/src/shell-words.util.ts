import { CliError } from './cli.error.js';

/**
 * Splits a command line the way a POSIX shell would, without running one: whitespace separates words, single quotes
 * keep everything literally, double quotes keep whitespace and honour `\"` and `\\`, a backslash outside quotes
 * escapes the next character. No variables, globs or operators — `--stdio "node dist/main.js --flag"` needs none.
 *
 * @example splitShellWords(`node "my server.js" --name='a b'`) // ['node', 'my server.js', '--name=a b']
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw CliError.usage(`unterminated ${quote === '"' ? 'double' : 'single'} quote in --stdio command`);
  if (inWord) words.push(word);
  return words;
}
