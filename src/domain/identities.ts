/**
 * Partner-side identities (api-v2.md "Events", DECISIONS.md "Partners, pending things, webhooks",
 * notes §15): the non-native owners of pending things, given as `owner=` in auto-submit URLs and
 * as `identity` to the verify endpoints.
 *
 * Forms (anything else is refused):
 * - `email:<md5>` — 32 hexadecimal digits, the MD5 of the lower-cased address; upper-case digits
 *   are accepted and stored lower-case, so one address is one identity;
 * - `twitter:user:id:<id>` — 1 to 20 decimal digits;
 * - `partner:<namespace>:<id>` — a namespace (see `NAMESPACE`) and an id of 1 to 200 printable
 *   ASCII characters without spaces.
 * `email:` and `twitter:` identities are global: no partner owns them. `partner:` identities
 * belong to the partner with that namespace.
 */
import { ValidationError } from './errors.ts';

/** A partner namespace: lower-case letters, digits, `-` and `_`, 1–63 characters, starting with a letter or digit. */
export const NAMESPACE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export type Identity =
  | { kind: 'email'; identity: string }
  | { kind: 'twitter'; identity: string }
  | { kind: 'partner'; identity: string; namespace: string };

/** Parses an identity; null when it has none of the three forms. */
export function parseIdentity(raw: unknown): Identity | null {
  if (typeof raw !== 'string') return null;
  let m = /^email:([0-9a-fA-F]{32})$/.exec(raw);
  if (m) return { kind: 'email', identity: `email:${m[1]!.toLowerCase()}` };
  m = /^twitter:user:id:(\d{1,20})$/.exec(raw);
  if (m) return { kind: 'twitter', identity: raw };
  m = /^partner:([^:]+):([\x21-\x7e]{1,200})$/.exec(raw);
  if (m && NAMESPACE.test(m[1]!)) return { kind: 'partner', identity: raw, namespace: m[1]! };
  return null;
}

/**
 * Parses the `owner` of an auto-submit URL.
 * @throws ValidationError (400 `validation`) naming the three accepted forms.
 */
export function requireIdentity(raw: unknown, param = 'owner'): Identity {
  const id = parseIdentity(raw);
  if (!id) {
    throw new ValidationError(
      `Invalid ${param}: expected email:<32 hex digits of an MD5>, twitter:user:id:<digits> or partner:<namespace>:<id>`,
      'tips',
    );
  }
  return id;
}

/**
 * The website page where the owner of a pending thing claims it: `{site_url}/claim/<identity,
 * URL-encoded>`. For `email:` identities a partner appends `/owner/<URL-encoded address>` (notes
 * §15) so the page can show which address to confirm.
 */
export function claimUrl(siteUrl: string, identity: string): string {
  return `${siteUrl}/claim/${encodeURIComponent(identity)}`;
}
