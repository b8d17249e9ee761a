import { Injectable } from '@nestjs/common';

/** Whether the console is linked to PagerDuty. */
export type PagerDutyStatus = 'disconnected' | 'signing-in' | 'connected';

/**
 * The console's link to PagerDuty. The sign-in itself happens in the user's browser; PagerDuty then calls the
 * console's OAuth callback (not part of this demo), which would call `connected()`.
 */
@Injectable()
export class PagerDutyConnection {
  private current: PagerDutyStatus = 'disconnected';

  get status(): PagerDutyStatus {
    return this.current;
  }

  /** The user agreed to open the sign-in page. */
  signingIn(): void {
    if (this.current === 'disconnected') this.current = 'signing-in';
  }

  /** The OAuth callback completed. */
  connected(): void {
    this.current = 'connected';
  }
}
