import { describe, expect, it } from 'vitest';
import { readSkillFrontmatter, stripBom } from './skill-frontmatter.util.js';

describe('readSkillFrontmatter', () => {
  it('parses the leading block verbatim, CRLF included, without coercing values', () => {
    const read = readSkillFrontmatter(
      '---\r\nname: x\r\ndescription: d\r\nversion: 2.1\r\nlabel: "2.1"\r\n---\r\n# body\n',
    );
    expect(read).toEqual({ ok: true, frontmatter: { name: 'x', description: 'd', version: 2.1, label: '2.1' } });
  });

  it.each([
    ['no block', '# title\n', /does not begin/],
    ['a block not at the start', '\n---\nname: x\n---\n', /does not begin/],
    ['a BOM left in', '\uFEFF---\nname: x\n---\n', /byte order mark/],
    ['a list', '---\n- a\n---\n', /not a YAML mapping/],
    ['duplicate keys', '---\na: 1\na: 2\n---\n', /not valid YAML/],
    ['a value JSON cannot carry', '---\nname: x\nratio: .nan\n---\n', /JSON cannot carry/],
  ])('refuses %s', (_label, text, problem) => {
    const read = readSkillFrontmatter(text);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toMatch(problem);
  });

  it('strips only a leading UTF-8 BOM', () => {
    expect([...stripBom(Uint8Array.from([0xef, 0xbb, 0xbf, 0x2d]))]).toEqual([0x2d]);
    expect([...stripBom(Uint8Array.from([0x2d, 0xef, 0xbb, 0xbf]))]).toEqual([0x2d, 0xef, 0xbb, 0xbf]);
  });
});
