/** Where operators sign in to PagerDuty (the OAuth authorization endpoint of the console's PagerDuty app). */
export const PAGERDUTY_SIGN_IN_URL =
  'https://identity.pagerduty.com/oauth/authorize?client_id=ops-console&response_type=code&scope=read+write';
