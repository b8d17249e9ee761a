import { describe, expect, it } from 'vitest';
import { appViewResult, appViewSettings } from './app-view.meta.js';

describe('appViewSettings', () => {
  it('builds _meta.ui from the options, with a long default ttlMs', () => {
    expect(appViewSettings({})).toEqual({ ttlMs: 3_600_000 });
    expect(
      appViewSettings({
        csp: {
          connectDomains: ['https://api.example.com'],
          resourceDomains: ['https://*.cdn.example.com:8443/assets/'],
        },
        permissions: { microphone: {}, clipboardWrite: {} },
        domain: 'a1b2.example-host.com',
        prefersBorder: false,
        ttlMs: 0,
      }),
    ).toEqual({
      ui: {
        csp: {
          connectDomains: ['https://api.example.com'],
          resourceDomains: ['https://*.cdn.example.com:8443/assets/'],
        },
        permissions: { microphone: {}, clipboardWrite: {} },
        domain: 'a1b2.example-host.com',
        prefersBorder: false,
      },
      ttlMs: 0,
    });
  });

  it('refuses values that would change the policy hosts build, or that hosts do not know', () => {
    expect(() => appViewSettings({ csp: { connectDomains: ["https://a.com 'unsafe-eval'"] } })).toThrow(
      'csp.connectDomains has',
    );
    expect(() => appViewSettings({ csp: { connectDomains: ['https://a.com;script-src *'] } })).toThrow(
      'is not an origin',
    );
    expect(() => appViewSettings({ csp: { scriptDomains: [] } as never })).toThrow('csp.scriptDomains is not one of');
    expect(() => appViewSettings({ permissions: { usb: {} } as never })).toThrow('permissions.usb is not one of');
    expect(() => appViewSettings({ domain: ' ' })).toThrow('domain must be a non-empty string');
    expect(() => appViewSettings({ prefersBorder: 'yes' as never })).toThrow('prefersBorder must be a boolean');
    expect(() => appViewSettings({ ttlMs: -1 })).toThrow('ttlMs must be a non-negative integer');
  });
});

describe('appViewResult', () => {
  it('is one item with the MCP Apps MIME type, the HTML, _meta.ui and the ttlMs', () => {
    const settings = appViewSettings({ prefersBorder: true });
    expect(appViewResult('ui://v', '<!DOCTYPE html>', settings)).toEqual({
      contents: [
        {
          uri: 'ui://v',
          mimeType: 'text/html;profile=mcp-app',
          text: '<!DOCTYPE html>',
          _meta: { ui: { prefersBorder: true } },
        },
      ],
      ttlMs: 3_600_000,
    });
    expect(appViewResult('ui://v', new TextEncoder().encode('<p>'), { ttlMs: 5 }).contents).toEqual([
      { uri: 'ui://v', mimeType: 'text/html;profile=mcp-app', blob: Buffer.from('<p>').toString('base64') },
    ]);
  });

  it('refuses anything but one document', () => {
    expect(() => appViewResult('ui://v', [{ uri: 'ui://v', text: 'x' }], { ttlMs: 1 })).toThrow('as a string or bytes');
  });
});
