import { describe, expect, it } from 'vitest';
import { createEventType } from './event-type.factory.js';
import { McpEventTypes } from './event-types.registry.js';

/** The catalog without a shared registry state: runtime changes are this process's own, applied at once. */
describe('McpEventTypes (one process)', () => {
  const declared = () => {
    const types = new McpEventTypes();
    types.add(
      'Fixture.audit',
      createEventType('Fixture.audit', { name: 'audit.entry' }, () => true),
    );
    types.add(
      'Fixture.deploy',
      createEventType('Fixture.deploy', { name: 'deploy.finished' }, () => true),
    );
    types.completeDiscovery();
    return types;
  };
  const names = (types: McpEventTypes) => types.list().map((type) => type.name);

  it('register applies at once and resolves; a matcher may be named with provideMatcher', async () => {
    const types = declared();
    types.provideMatcher(
      'same-branch',
      (build: { branch: string }, filter: { branch: string }) => build.branch === filter.branch,
    );
    const registered = types.register({ name: 'build.finished' }, 'same-branch');
    expect(names(types)).toEqual(['audit.entry', 'deploy.finished', 'build.finished']);
    await expect(registered).resolves.toBeUndefined();
    const match = types.get('build.finished')!.match;
    expect(match({ branch: 'main' }, { branch: 'main' }, {} as never)).toBe(true);
    expect(() => types.register({ name: 'other' }, 'not-provided')).toThrow(/no matcher is provided under the name/);
    expect(() => types.provideMatcher('same-branch', () => true)).toThrow(/provided already/);
  });

  it('enable brings back a declared type that remove took away, and only such a type', () => {
    const types = declared();
    const heard: string[] = [];
    types.changes$.subscribe((change) => heard.push(`${change.name}${change.removed ? ' removed' : ''}`));
    expect(types.enable('audit.entry')).toBe(false); // it is there
    expect(types.remove('audit.entry')).toBe(true);
    expect(names(types)).toEqual(['deploy.finished']);
    expect(types.enable('audit.entry')).toBe(true);
    expect(types.get('audit.entry')?.name).toBe('audit.entry');
    void types.register({ name: 'runtime.only' });
    types.remove('runtime.only');
    expect(types.enable('runtime.only')).toBe(false); // not declared
    expect(heard).toEqual(['audit.entry removed', 'audit.entry', 'runtime.only', 'runtime.only removed']);
  });
});
