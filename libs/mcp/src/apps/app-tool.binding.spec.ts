import { describe, expect, it } from 'vitest';
import { isAppViewUri, toolAppBinding } from './app-tool.binding.js';

describe('toolAppBinding', () => {
  it('writes the view under _meta.ui.resourceUri and the flat ui/resourceUri, keeping the rest of _meta', () => {
    expect(toolAppBinding({ view: 'ui://a/b' }, { trace: 1 })).toEqual({
      view: 'ui://a/b',
      appOnly: false,
      meta: { trace: 1, ui: { resourceUri: 'ui://a/b' }, 'ui/resourceUri': 'ui://a/b' },
    });
  });

  it('writes a declared visibility; exactly ["app"] is app-only and may have no view', () => {
    expect(toolAppBinding({ visibility: ['app'] }, undefined)).toEqual({
      visibility: ['app'],
      appOnly: true,
      meta: { ui: { visibility: ['app'] } },
    });
    expect(toolAppBinding({ view: 'ui://v', visibility: ['model', 'app'] }, undefined)?.appOnly).toBe(false);
  });

  it('reads a hand-written _meta.ui (or the flat key alone) and normalises it', () => {
    expect(toolAppBinding(undefined, { 'ui/resourceUri': 'ui://v' })?.meta).toEqual({
      ui: { resourceUri: 'ui://v' },
      'ui/resourceUri': 'ui://v',
    });
    expect(toolAppBinding(undefined, { ui: { resourceUri: 'ui://v', visibility: ['app'] } })?.appOnly).toBe(true);
    expect(toolAppBinding(undefined, { other: true })).toBeUndefined();
    expect(toolAppBinding(undefined, undefined)).toBeUndefined();
  });

  it('refuses what hosts would reject or misread', () => {
    expect(() => toolAppBinding({ view: 'https://x/y.html' }, undefined)).toThrow('must be a ui:// URI');
    expect(() => toolAppBinding({ view: 'ui://a b' }, undefined)).toThrow('must be a ui:// URI');
    expect(() => toolAppBinding({}, undefined)).toThrow('app needs a view');
    expect(() => toolAppBinding({ view: 'ui://v', visibility: [] }, undefined)).toThrow('non-empty array');
    expect(() => toolAppBinding({ view: 'ui://v', visibility: ['user' as 'app'] }, undefined)).toThrow(
      `"user" is neither 'model' nor 'app'`,
    );
    expect(() => toolAppBinding({ view: 'ui://v', visibility: ['app', 'app'] }, undefined)).toThrow('twice');
    expect(() => toolAppBinding({ view: 'ui://v' }, { ui: { resourceUri: 'ui://v' } })).toThrow('not both');
    expect(() => toolAppBinding(undefined, { ui: { resourceUri: 'ui://v', csp: {} } })).toThrow(
      '_meta.ui.csp belongs on the view',
    );
    expect(() => toolAppBinding(undefined, { ui: { resourceUri: 'ui://a' }, 'ui/resourceUri': 'ui://b' })).toThrow(
      'name different views',
    );
  });

  it('recognises ui:// URIs case-insensitively by scheme', () => {
    expect(isAppViewUri('UI://Board')).toBe(true);
    expect(isAppViewUri('uix://board')).toBe(false);
    expect(isAppViewUri(42)).toBe(false);
  });
});
