/**
 * The exact redirect URIs a client application registers (RFC 9700 §2.1 and §4.1.3, DECISIONS.md
 * "OAuth 2"): `oauth_clients.redirect_uris`, a JSON array of strings, in the order registered.
 * `[]` (every existing client) means none: the callback-domain rule alone applies.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeClientRedirectUris(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('oauth_clients')
        .addColumn('redirect_uris', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
