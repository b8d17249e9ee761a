import { describe, expect, it } from 'vitest';
import { canElicit } from '../mrtr/input-request.builders.js';
import { boundedCapabilities, boundedClientInfo } from './client-profile.util.js';
import { MAX_CLIENT_INFO_FIELD_LENGTH } from './legacy-session.constants.js';

describe('boundedCapabilities', () => {
  it('keeps which capabilities are present, in fresh objects, and drops everything else', () => {
    const declared = {
      elicitation: { form: { x: 1 }, url: {}, junk: 'j'.repeat(100) },
      sampling: { tools: { t: [1] }, context: {}, other: {} },
      roots: { listChanged: true, more: {} },
      experimental: { big: Array.from({ length: 1000 }, () => ({})) },
      tasks: {},
    };
    const kept = boundedCapabilities(declared);
    expect(kept).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {}, context: {} },
      roots: { listChanged: true },
    });
    expect(kept.elicitation?.form).not.toBe(declared.elicitation.form);
    expect(kept.sampling?.tools).not.toBe(declared.sampling.tools);
  });

  it.each([
    [{}, false, false],
    [{ elicitation: {} }, true, false],
    [{ elicitation: { form: {} } }, true, false],
    [{ elicitation: { url: {} } }, false, true],
    [{ elicitation: { form: 'yes' } }, false, false],
    [{ elicitation: { form: {}, url: 1 } }, true, false],
    [{ elicitation: [] }, false, false],
    [{ elicitation: null }, false, false],
  ])('keeps the elicitation modes of %j as the server reads them', (declared, form, url) => {
    const kept = boundedCapabilities(declared as Record<string, unknown>);
    expect([canElicit(kept, 'form'), canElicit(kept, 'url')]).toEqual([form, url]);
    expect([
      canElicit(declared as Record<string, unknown>, 'form'),
      canElicit(declared as Record<string, unknown>, 'url'),
    ]).toEqual([form, url]);
  });

  it('keeps roots without listChanged unless it is exactly true, and ignores non-object entries', () => {
    expect(boundedCapabilities({ roots: { listChanged: 'yes' }, sampling: 1, elicitation: 'form' })).toEqual({
      roots: {},
    });
  });
});

describe('boundedClientInfo', () => {
  it('keeps name, version and title only, cut to the field length', () => {
    const long = 'n'.repeat(10_000);
    expect(
      boundedClientInfo({ name: long, version: '1', title: 'T', description: 'd', icons: [{ src: 'x' }] }),
    ).toEqual({
      name: 'n'.repeat(MAX_CLIENT_INFO_FIELD_LENGTH),
      version: '1',
      title: 'T',
    });
  });

  it('never cuts a surrogate pair in half', () => {
    const name = `${'a'.repeat(MAX_CLIENT_INFO_FIELD_LENGTH - 1)}😀tail`;
    const kept = boundedClientInfo({ name, version: '1' })!;
    expect(kept.name).toBe('a'.repeat(MAX_CLIENT_INFO_FIELD_LENGTH - 1));
  });

  it.each([undefined, null, 'client', [], { name: 'x' }, { version: '1' }, { name: 1, version: '1' }])(
    'is undefined for %j',
    (declared) => {
      expect(boundedClientInfo(declared)).toBeUndefined();
    },
  );
});
