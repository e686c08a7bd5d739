/**
 * Limits on failed client authentications at `POST /oauth/token` and `POST /oauth/revoke`
 * (docs/api.md "OAuth 2" → "Failed client authentications"; src/ratelimit/failures.ts), in
 * 15-minute windows: CLIENT_AUTH_FAILURES_PER_CLIENT_AND_IP per (client_id, client IP) and
 * CLIENT_AUTH_FAILURES_PER_IP per client IP whatever the client_id. There is no ceiling per
 * client_id across IPs: client_ids are public (they travel in authorization URLs), so such a
 * ceiling would let anyone stop an application's token exchanges, and client secrets (256 random
 * bits, docs/adr/0003) cannot be guessed, however many sources try.
 */
import type { Config } from '../../config/index.ts';
import type { Clock } from '../../domain/clock.ts';
import { FailureLimits } from '../../ratelimit/failures.ts';
import { FixedWindowLimit } from '../../ratelimit/fixed-window.ts';
import type { CounterStore } from '../../ratelimit/store.ts';

/** The window of both limits: 15 minutes, in seconds. */
export const CLIENT_AUTH_WINDOW_SECONDS = 15 * 60;

/** The account key of a presented client_id (client_ids are 40 characters; longer input is cut). */
export function clientIdKey(clientId: string): string {
  return clientId.slice(0, 64);
}

/** The limits from the settings, over `store`. */
export function createClientAuthLimits(store: CounterStore, config: Config, clock: Clock): FailureLimits {
  const limit = (name: string, n: number) =>
    new FixedWindowLimit(store, { name, limit: n, windowSeconds: CLIENT_AUTH_WINDOW_SECONDS, clock });
  return new FailureLimits([
    {
      limit: limit('client-auth-failures', config.clientAuthFailuresPerClientAndIp),
      key: (clientId, network) => `${network}:${clientId}`,
    },
    { limit: limit('client-auth-failures-ip', config.clientAuthFailuresPerIp), key: (_clientId, network) => network },
  ]);
}
