import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { webhookHeaders } from './webhook-signer.js';

describe('webhookHeaders (Standard Webhooks 1.0.0 signatures through standardwebhooks)', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    const headers = webhookHeaders(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      '{"test": 2432232314}',
      'sub_x',
      new Date(1614265330 * 1000),
    );
    expect(headers).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      'x-mcp-subscription-id': 'sub_x',
    });
  });

  it('signs with every secret given (rotation), space-separated, each verifying on its own', () => {
    const secrets = [
      `whsec_${Buffer.alloc(64, 1).toString('base64')}`,
      `whsec_${Buffer.alloc(24, 2).toString('base64')}`,
    ];
    const body = '{"eventId":"evt_1"}';
    const headers = webhookHeaders(secrets, 'evt_1', body, 'sub_y');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of secrets) expect(new Webhook(secret).verify(body, headers)).toEqual({ eventId: 'evt_1' });
  });
});
