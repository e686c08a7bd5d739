/**
 * Finding accounts by e-mail address, case-insensitively (the password-reset request,
 * src/domain/credentials.ts): an index on `lower(email)`, so a request costs an index lookup
 * whether or not the address exists, never a scan of every user.
 */
import { sql, type Kysely } from 'kysely';

export function makeAddressLookup() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('users_email_lower')
        .on('users')
        .expression(sql`lower(email)`)
        .execute();
    },
  };
}
