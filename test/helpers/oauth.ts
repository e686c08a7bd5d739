/**
 * OAuth 2 test helpers: registered clients, HTTP Basic headers, PKCE pairs, and authorization
 * codes obtained through the same domain calls the consent page makes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Services } from '../../src/domain/services.ts';
import { createClient, type ClientRecord } from '../../src/auth/oauth/clients.ts';
import { approveAuthorization, validateAuthorizationRequest } from '../../src/auth/oauth/authorize.ts';
import { uniqueName } from './factories.ts';

export interface TestClient {
  client: ClientRecord;
  clientId: string;
  clientSecret: string;
}

/** Registers a client (default callback domain `app.example.com`, no exact redirect URIs, no owner). */
export async function buildClient(
  s: Services,
  opts: { callbackDomain?: string; name?: string; redirectUris?: string[]; ownerUserId?: number | null } = {},
): Promise<TestClient> {
  return createClient(s, {
    name: opts.name ?? uniqueName('App '),
    callbackDomain: opts.callbackDomain ?? 'app.example.com',
    redirectUris: opts.redirectUris,
    ownerUserId: opts.ownerUserId ?? null,
  });
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1). */
export function basic(clientId: string, clientSecret: string): { authorization: string } {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return { authorization: `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}` };
}

/** A PKCE verifier (43 base64url characters) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'https://app.example.com/callback';

/**
 * Runs validate + approve for `userId` and returns the code (and the redirect URL). `query` is the
 * authorization request (defaults: response_type=code, redirect_uri=REDIRECT_URI, scope tip).
 */
export async function authorizeCode(
  s: Services,
  c: TestClient,
  userId: number,
  query: Record<string, string | undefined> = {},
): Promise<{ code: string; location: URL }> {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'tip',
    ...query,
  })) {
    if (v !== undefined) q[k] = v;
  }
  const request = await validateAuthorizationRequest(s, q);
  const location = new URL(await approveAuthorization(s, request, userId));
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.href}`);
  return { code, location };
}
