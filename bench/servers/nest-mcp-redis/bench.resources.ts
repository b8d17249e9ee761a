import { Injectable } from '@nestjs/common';
import { McpResource } from '../../../libs/mcp/src/index.js';
import { BENCH_ITEMS_URI } from '../shared/scale-out.constants.js';

/**
 * One resource, so that the server offers resources and honours `resourceSubscriptions` in `subscriptions/listen`
 * (a server without resources drops them from the acknowledged filter). Listeners subscribe to
 * `bench://items/<group>`, which covers every `bench://items/<group>/<sequence>` the bench publishes.
 */
@Injectable()
export class BenchResources {
  @McpResource({
    uri: BENCH_ITEMS_URI,
    name: 'items',
    description: 'The bench items; updates are published under it',
    mimeType: 'text/plain',
  })
  items(): string {
    return 'bench items';
  }
}
