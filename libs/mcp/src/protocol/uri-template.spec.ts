import { describe, expect, it } from 'vitest';
import { UriTemplate, UriTemplateSyntaxError, type UriTemplateVariables } from './uri-template.js';

/** The variables of RFC 6570 §3.2 (without the associative arrays). */
const RFC_VARIABLES: UriTemplateVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_list: [],
};

const expand = (template: string, variables = RFC_VARIABLES): string => new UriTemplate(template).expand(variables);

describe('UriTemplate', () => {
  describe('expand (RFC 6570 examples)', () => {
    it.each([
      ['{var}', 'value'],
      ['{hello}', 'Hello%20World%21'],
    ])('level 1: %s', (template, expected) => expect(expand(template)).toBe(expected));

    it.each([
      ['{+var}', 'value'],
      ['{+hello}', 'Hello%20World!'],
      ['{+path}/here', '/foo/bar/here'],
      ['here?ref={+path}', 'here?ref=/foo/bar'],
      ['X{#var}', 'X#value'],
      ['X{#hello}', 'X#Hello%20World!'],
    ])('level 2: %s', (template, expected) => expect(expand(template)).toBe(expected));

    it.each([
      ['map?{x,y}', 'map?1024,768'],
      ['{x,hello,y}', '1024,Hello%20World%21,768'],
      ['{+x,hello,y}', '1024,Hello%20World!,768'],
      ['{+path,x}/here', '/foo/bar,1024/here'],
      ['{#x,hello,y}', '#1024,Hello%20World!,768'],
      ['{#path,x}/here', '#/foo/bar,1024/here'],
      ['X{.var}', 'X.value'],
      ['X{.x,y}', 'X.1024.768'],
      ['{/var}', '/value'],
      ['{/var,x}/here', '/value/1024/here'],
      ['{;x,y}', ';x=1024;y=768'],
      ['{;x,y,empty}', ';x=1024;y=768;empty'],
      ['{?x,y}', '?x=1024&y=768'],
      ['{?x,y,empty}', '?x=1024&y=768&empty='],
      ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
      ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ])('level 3: %s', (template, expected) => expect(expand(template)).toBe(expected));

    it.each([
      ['{var:3}', 'val'],
      ['{var:30}', 'value'],
      ['{list}', 'red,green,blue'],
      ['{list*}', 'red,green,blue'],
      ['{+path:6}/here', '/foo/b/here'],
      ['{#path:6}/here', '#/foo/b/here'],
      ['X{.list}', 'X.red,green,blue'],
      ['X{.list*}', 'X.red.green.blue'],
      ['{/var:1,var}', '/v/value'],
      ['{/list}', '/red,green,blue'],
      ['{/list*}', '/red/green/blue'],
      ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
      ['{;hello:5}', ';hello=Hello'],
      ['{;list}', ';list=red,green,blue'],
      ['{;list*}', ';list=red;list=green;list=blue'],
      ['{?var:3}', '?var=val'],
      ['{?list}', '?list=red,green,blue'],
      ['{?list*}', '?list=red&list=green&list=blue'],
      ['{&var:3}', '&var=val'],
      ['{&list}', '&list=red,green,blue'],
      ['{&list*}', '&list=red&list=green&list=blue'],
    ])('level 4: %s', (template, expected) => expect(expand(template)).toBe(expected));

    it.each([
      ['{half}', '50%25'],
      ['O{empty}X', 'OX'],
      ['O{undef}X', 'OX'],
      ['?{x,empty}', '?1024,'],
      ['?{x,undef}', '?1024'],
      ['?{undef,y}', '?768'],
      ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
      ['{+base}index', 'http://example.com/home/index'],
      ['{+half}', '50%25'],
      ['foo{#empty}', 'foo#'],
      ['foo{#undef}', 'foo'],
      ['www{.dom*}', 'www.example.com'],
      ['X{.empty}', 'X.'],
      ['X{.undef}', 'X'],
      ['{/who,dub}', '/fred/me%2Ftoo'],
      ['{/var,empty}', '/value/'],
      ['{/var,undef}', '/value'],
      ['{;v,empty,who}', ';v=6;empty;who=fred'],
      ['{;v,bar,who}', ';v=6;who=fred'],
      ['{;count*}', ';count=one;count=two;count=three'],
      ['{?x,y,undef}', '?x=1024&y=768'],
      ['X{empty_list}Y{?empty_list*}', 'XY'],
    ])('edge cases of §3.2: %s', (template, expected) => expect(expand(template)).toBe(expected));

    it('keeps percent-encoded triplets in reserved expansion and encodes characters outside the URI alphabet', () => {
      expect(expand('{+v}', { v: '%20 é' })).toBe('%20%20%C3%A9');
      expect(expand('{v}', { v: "a+b&c=d'é😀" })).toBe('a%2Bb%26c%3Dd%27%C3%A9%F0%9F%98%80');
      expect(expand('notes://my notes/{id}', { id: '1' })).toBe('notes://my%20notes/1');
    });

    it('counts a prefix modifier in code points', () => {
      expect(expand('{v:2}', { v: '😀😀😀' })).toBe('%F0%9F%98%80%F0%9F%98%80');
    });
  });

  describe('match', () => {
    it('matches a simple variable within one path segment', () => {
      const template = new UriTemplate('file:///{path}');
      expect(template.match('file:///readme.md')).toEqual({ path: 'readme.md' });
      expect(template.match('file:///docs/readme.md')).toBeNull();
      expect(template.match('file:///')).toBeNull();
    });

    it('matches literal text around variables and anchors the whole URI', () => {
      const template = new UriTemplate('users://{id}/profile');
      expect(template.match('users://42/profile')).toEqual({ id: '42' });
      expect(template.match('users://42/settings')).toBeNull();
      expect(template.match('users:///profile')).toBeNull();
      expect(template.match('users://a/b/profile')).toBeNull();
      expect(template.match('users://42/profile/more')).toBeNull();
      expect(template.match('xusers://42/profile')).toBeNull();
      expect(template.match('users://42/profile?tab=1')).toBeNull();
    });

    it('escapes regular-expression characters of literal text', () => {
      const template = new UriTemplate('calc://(1+1)*[{n}].$');
      expect(template.match('calc://(1+1)*[2].$')).toEqual({ n: '2' });
      expect(template.match('calc://(11)*[2].$')).toBeNull();
      expect(template.match('calc://(1+1)*[2]x$')).toBeNull();
    });

    it('lets reserved expansion span path segments', () => {
      expect(new UriTemplate('file:///{+path}').match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
      expect(new UriTemplate('repo://{+path}/meta').match('repo://a/b/c/meta')).toEqual({ path: 'a/b/c' });
      expect(new UriTemplate('repo://{+path}/{name}.txt').match('repo://a/b/my.notes.txt')).toEqual({
        path: 'a/b',
        name: 'my.notes',
      });
      expect(new UriTemplate('doc://page{#section}').match('doc://page#intro/part-2')).toEqual({
        section: 'intro/part-2',
      });
    });

    it('stops reserved expansion before a query the template goes on with', () => {
      const template = new UriTemplate('proxy://{+path}{?q}');
      expect(template.match('proxy://a/b?q=1')).toEqual({ path: 'a/b', q: '1' });
      expect(template.match('proxy://a/b')).toEqual({ path: 'a/b' });
    });

    it('matches exploded path segments as a list', () => {
      const template = new UriTemplate('docs://root{/segments*}');
      expect(template.match('docs://root/a/b/c')).toEqual({ segments: ['a', 'b', 'c'] });
      expect(template.match('docs://root/a%2Fb/c')).toEqual({ segments: ['a/b', 'c'] });
      expect(template.match('docs://root')).toEqual({});
      expect(new UriTemplate('docs://{/segments*}/index').match('docs:///a/b/index')).toEqual({
        segments: ['a', 'b'],
      });
    });

    it('matches the other operators', () => {
      expect(new UriTemplate('X{.x,y}').match('X.1024.768')).toEqual({ x: '1024', y: '768' });
      expect(new UriTemplate('file:///{name}{.ext}').match('file:///archive.tar.gz')).toEqual({
        name: 'archive',
        ext: 'tar.gz',
      });
      expect(new UriTemplate('map?{x,y}').match('map?1024,768')).toEqual({ x: '1024', y: '768' });
      expect(new UriTemplate('map?{x,y}').match('map?1024')).toEqual({ x: '1024' });
      expect(new UriTemplate('colors://{list}').match('colors://red,green')).toEqual({ list: 'red,green' });
      expect(new UriTemplate('colors://{list*}').match('colors://red,green')).toEqual({ list: ['red', 'green'] });
      expect(new UriTemplate('www{.dom*}').match('www.example.com')).toEqual({ dom: ['example', 'com'] });
      expect(new UriTemplate('{/var,x}/here').match('/value/1024/here')).toEqual({ var: 'value', x: '1024' });
      expect(new UriTemplate('{/var,x}/here').match('/a/b/c/here')).toBeNull();
      expect(new UriTemplate('x:{/a,b}{/c}').match('x:/1/2/3')).toEqual({ a: '1', b: '2', c: '3' });
    });

    it('fills consecutive optional expressions from the left', () => {
      const template = new UriTemplate('docs://{/section}{/page}{.format}');
      expect(template.match('docs:///guide/intro.md')).toEqual({ section: 'guide', page: 'intro', format: 'md' });
      expect(template.match('docs:///guide.md')).toEqual({ section: 'guide', format: 'md' });
      expect(template.match('docs://')).toEqual({});
      expect(template.match('docs:///a/b/c')).toBeNull();
    });

    it('lets an optional expression be absent before literal text that starts like it', () => {
      const template = new UriTemplate('repo://{owner}{/repo}/issues');
      expect(template.match('repo://nest/mcp/issues')).toEqual({ owner: 'nest', repo: 'mcp' });
      expect(template.match('repo://nest/issues')).toEqual({ owner: 'nest' });
    });

    it('matches query parameters in any order and tolerates absent ones', () => {
      const template = new UriTemplate('search://items{?q,lang}');
      expect(template.match('search://items?q=cats&lang=en')).toEqual({ q: 'cats', lang: 'en' });
      expect(template.match('search://items?lang=en&q=cats')).toEqual({ q: 'cats', lang: 'en' });
      expect(template.match('search://items?lang=en')).toEqual({ lang: 'en' });
      expect(template.match('search://items?q=')).toEqual({ q: '' });
      expect(template.match('search://items')).toEqual({});
    });

    it('rejects unknown or repeated query parameters', () => {
      const template = new UriTemplate('search://items{?q,lang}');
      expect(template.match('search://items?q=cats&page=2')).toBeNull();
      expect(template.match('search://items?q=cats&q=dogs')).toBeNull();
    });

    it('treats adjacent query expressions as one parameter list', () => {
      const template = new UriTemplate('search://items{?q}{&page,size}');
      expect(template.match('search://items?size=10&q=x&page=2')).toEqual({ q: 'x', page: '2', size: '10' });
      expect(new UriTemplate('search://items?fixed=yes{&x}').match('search://items?fixed=yes&x=1')).toEqual({
        x: '1',
      });
    });

    it('collects exploded query and path parameters into lists', () => {
      expect(new UriTemplate('tags://{?tag*}').match('tags://?tag=a&tag=b%20c')).toEqual({ tag: ['a', 'b c'] });
      expect(new UriTemplate('tags://{?tag*}').match('tags://?tag=a')).toEqual({ tag: ['a'] });
      expect(new UriTemplate('map://pt{;x,y}').match('map://pt;y=768;x=1024')).toEqual({ x: '1024', y: '768' });
      expect(new UriTemplate('map://pt{;x,empty}').match('map://pt;x=1;empty')).toEqual({ x: '1', empty: '' });
      expect(new UriTemplate('colors://{;list*}').match('colors://;list=red;list=green')).toEqual({
        list: ['red', 'green'],
      });
    });

    it('percent-decodes values', () => {
      const template = new UriTemplate('users://{id}/profile');
      expect(template.match('users://jane%20doe/profile')).toEqual({ id: 'jane doe' });
      expect(template.match('users://%C3%A9t%C3%A9/profile')).toEqual({ id: 'été' });
      expect(template.match('users://a%2Fb/profile')).toEqual({ id: 'a/b' });
      expect(new UriTemplate('search://{?q}').match('search://?q=a%26b%3Dc')).toEqual({ q: 'a&b=c' });
    });

    it('returns null instead of throwing on a malformed percent-escape', () => {
      const template = new UriTemplate('users://{id}/profile');
      expect(template.match('users://%ZZ/profile')).toBeNull();
      expect(template.match('users://%E0%A4%A/profile')).toBeNull();
      expect(template.match('users://%C3/profile')).toBeNull();
      expect(new UriTemplate('search://{?q}').match('search://?q=%')).toBeNull();
    });

    it('returns null for a URI that is too long or not a string', () => {
      const template = new UriTemplate('file:///{+path}');
      expect(template.match(`file:///${'a'.repeat(8184)}`)).not.toBeNull();
      expect(template.match(`file:///${'a'.repeat(8185)}`)).toBeNull();
      expect(template.match(undefined as unknown as string)).toBeNull();
    });

    it('accepts literal characters outside the URI alphabet raw or percent-encoded', () => {
      const template = new UriTemplate('notes://my notes/{id}');
      expect(template.match('notes://my notes/1')).toEqual({ id: '1' });
      expect(template.match('notes://my%20notes/1')).toEqual({ id: '1' });
      expect(new UriTemplate('notes://é/{id}').match('notes://%c3%a9/1')).toEqual({ id: '1' });
    });

    it('gives the longest value to the last variable before a delimiter', () => {
      expect(new UriTemplate('file:///{name}.txt').match('file:///my.notes.txt')).toEqual({ name: 'my.notes' });
      expect(new UriTemplate('pkg://{name}@{major}.{minor}.{patch}').match('pkg://lib@1.22.3-beta.1')).toEqual({
        name: 'lib',
        major: '1',
        minor: '22',
        patch: '3-beta.1',
      });
      expect(new UriTemplate('repo://{owner}-{repo}/issues').match('repo://nest-js-core/issues')).toEqual({
        owner: 'nest',
        repo: 'js-core',
      });
    });

    it('enforces prefix modifiers and consistent repeated variables', () => {
      expect(new UriTemplate('id://{id:3}').match('id://abc')).toEqual({ id: 'abc' });
      expect(new UriTemplate('id://{id:3}').match('id://abcd')).toBeNull();
      const repeated = new UriTemplate('x://{a}/{a}');
      expect(repeated.match('x://1/1')).toEqual({ a: '1' });
      expect(repeated.match('x://1/2')).toBeNull();
      const prefixed = new UriTemplate('x://{a:2}/{a}');
      expect(prefixed.match('x://ab/abc')).toEqual({ a: 'abc' });
      expect(prefixed.match('x://ab/xyz')).toBeNull();
      expect(new UriTemplate('x://{a}/{a:2}').match('x://abc/ab')).toEqual({ a: 'abc' });
    });

    it('handles variables named like Object.prototype members', () => {
      expect(new UriTemplate('x://{__proto__}/{constructor}').match('x://a/b')).toEqual(
        Object.fromEntries([
          ['__proto__', 'a'],
          ['constructor', 'b'],
        ]),
      );
      expect(new UriTemplate('x://{constructor}').expand({})).toBe('x://');
    });

    it('round-trips expand → match for simple variables', () => {
      const template = new UriTemplate('users://{id}/posts/{post}{?q,lang}{#section}');
      const samples: UriTemplateVariables[] = [
        { id: '42', post: 'hello-world' },
        { id: 'jane doe', post: 'a/b?c#d', q: 'x&y=z', lang: 'é😀' },
        { id: '100%', post: "it's,(fine)", q: '', section: 'a b' },
        { id: '..', post: '~_-.', lang: '+' },
      ];
      for (const variables of samples) {
        expect(template.match(template.expand(variables))).toEqual(variables);
      }
    });

    it('round-trips expand → match for reserved, dotted and exploded variables', () => {
      const template = new UriTemplate('repo://{+path}/-/{name}{.ext}{?tag*}');
      const variables = { path: 'org/repo/src', name: 'a b', ext: 'tar.gz', tag: ['x/y', 'z'] };
      expect(template.match(template.expand(variables))).toEqual(variables);
      const segmented = new UriTemplate('repo://{owner}/{repo}/blob{/segments*}{?tag*}');
      const tree = { owner: 'nest', repo: 'mcp', segments: ['src', 'a b.ts'], tag: ['x', 'y'] };
      expect(segmented.match(segmented.expand(tree))).toEqual(tree);
      const dotted = new UriTemplate('file:///{dir}/{name}{.ext}');
      const file = { dir: 'my docs', name: 'report', ext: 'tar.gz' };
      expect(dotted.match(dotted.expand(file))).toEqual(file);
      expect(template.match(template.expand(variables))).toEqual(variables);
    });

    it('stays fast on hostile URIs', () => {
      const cases: Array<[string, string]> = [
        ['x://{+a}x{b}yyyy', `x://${'x'.repeat(8000)}`],
        ['x://{+a}/{b}.txt', `x://${'a/'.repeat(4000)}`],
        ['x://{a}.{b}.{c}.{d}.txt', `x://${'.'.repeat(8000)}`],
        ['x://{+a}-{b}-{c}.json', `x://${'-'.repeat(8000)}`],
        ['x://{/a,b,c}/end', `x://${'/'.repeat(8000)}`],
        ['x://{a}.{b}{?q}#{c}', `x://${'.?'.repeat(4000)}`],
        ['x://{/a*}/end', `x://${'/'.repeat(8000)}`],
        ['x://{?a,b,c}', `x://?${'a=&'.repeat(2600)}`],
        [`x:${Array.from({ length: 64 }, (_, i) => `{/v${i}}`).join('')}`, `x:${'/'.repeat(8000)}`],
        [`x:${Array.from({ length: 32 }, (_, i) => `{.v${i}}{/p${i}}`).join('')}`, `x:${'./'.repeat(4000)}`],
      ];
      for (const [source, uri] of cases) {
        const template = new UriTemplate(source);
        const started = performance.now();
        template.match(uri);
        expect(performance.now() - started, source).toBeLessThan(250);
      }
    });
  });

  describe('syntax errors', () => {
    it.each([
      ['{var', 'unclosed'],
      ['var}', 'unmatched'],
      ['{a{b}}', 'unexpected "{"'],
      ['x{}', 'empty expression'],
      ['{=var}', 'reserved'],
      ['{,var}', 'reserved'],
      ['{!var}', 'reserved'],
      ['{@var}', 'reserved'],
      ['{|var}', 'reserved'],
      ['{a b}', 'invalid variable name'],
      ['{a..b}', 'invalid variable name'],
      ['{.a.}', 'invalid variable name'],
      ['{a-b}', 'invalid variable name'],
      ['{a,}', 'missing variable name'],
      ['{+}', 'missing variable name'],
      ['{var:0}', 'prefix modifier'],
      ['{var:10000}', 'prefix modifier'],
      ['{var:}', 'prefix modifier'],
      ['{var:x}', 'prefix modifier'],
      ['{var:3*}', 'prefix modifier'],
      ['x%zz', 'percent-encoding'],
      ['x\ny', 'control character'],
    ])('rejects %j (%s)', (template, problem) => {
      expect(() => new UriTemplate(template)).toThrow(UriTemplateSyntaxError);
      expect(() => new UriTemplate(template)).toThrow(problem);
    });

    it('says where the problem is', () => {
      expect(() => new UriTemplate('users://{id}/{bad name}')).toThrow(/at position 14/);
    });

    it('bounds the template length and the number of expressions', () => {
      expect(() => new UriTemplate(`x://${'a'.repeat(4092)}`)).not.toThrow();
      expect(() => new UriTemplate(`x://${'a'.repeat(4093)}`)).toThrow(/too long/);
      expect(() => new UriTemplate('{/a}'.repeat(64))).not.toThrow();
      expect(() => new UriTemplate('{/a}'.repeat(65))).toThrow(/more than 64 expressions/);
    });

    it('rejects templates whose variable-length parts cannot be told apart', () => {
      expect(() => new UriTemplate('x://{+a}/x/{+b}/y')).toThrow(/Ambiguous/);
      expect(() => new UriTemplate('x://{a}{b}')).toThrow(/Ambiguous/);
      expect(() => new UriTemplate('x://{/a}/x{/b}/y')).toThrow(/Ambiguous/);
      expect(() => new UriTemplate('up{+path}{var}/here')).toThrow(/Ambiguous/);
      expect(() => new UriTemplate('x://{+a}/blob{/b*}.json')).toThrow(/Ambiguous/);
      expect(() => new UriTemplate('x://{+a}/{+b}')).not.toThrow();
      expect(() => new UriTemplate('x://{+a}/{b}')).not.toThrow();
    });
  });

  describe('variableNames and specificity', () => {
    it('lists variable names once, in order of appearance', () => {
      expect(new UriTemplate('x://{b}/{a,b}{?c,a}').variableNames).toEqual(['b', 'a', 'c']);
      expect(new UriTemplate('x://static').variableNames).toEqual([]);
    });

    it('ranks templates with more literal text higher, reserved expansion lower', () => {
      const ordered = ['users://{id}/profile', 'users://{id}/{tab}', 'users://{id}', 'users://{+rest}', '{+uri}'];
      const shuffled = [...ordered].reverse().map((source) => new UriTemplate(source));
      const ranked = shuffled.sort((a, b) => b.specificity - a.specificity).map((t) => t.template);
      expect(ranked).toEqual(ordered);
    });

    it('picks the most specific of several matching templates', () => {
      const templates = ['users://{+rest}', 'users://{id}/profile', 'users://{id}/{tab}'].map(
        (source) => new UriTemplate(source),
      );
      const best = templates
        .filter((template) => template.match('users://42/profile'))
        .sort((a, b) => b.specificity - a.specificity)[0];
      expect(best.template).toBe('users://{id}/profile');
    });
  });
});
