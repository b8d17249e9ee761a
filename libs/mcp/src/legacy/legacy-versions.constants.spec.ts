import { describe, expect, it } from 'vitest';
import { STATELESS_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-version.constants.js';
import {
  LATEST_LEGACY_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  LEGACY_RESOURCE_NOT_FOUND,
} from './legacy-versions.constants.js';

describe('legacy protocol versions', () => {
  it('serves the initialize-based revisions, newest first; the newest is what an unknown request is offered', () => {
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26']);
    expect([...LEGACY_PROTOCOL_VERSIONS].sort().reverse()).toEqual(LEGACY_PROTOCOL_VERSIONS);
    expect(LATEST_LEGACY_VERSION).toBe('2025-11-25');
  });

  it('never overlaps the stateless versions (the wire of a message is told by its version), and discover lists the newest', () => {
    expect(LEGACY_PROTOCOL_VERSIONS.filter((version) => STATELESS_PROTOCOL_VERSIONS.includes(version))).toEqual([]);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(LATEST_LEGACY_VERSION);
  });

  it('keeps the retired "resource not found" code of this wire', () => {
    expect(LEGACY_RESOURCE_NOT_FOUND).toBe(-32002);
  });
});
