/**
 * Accounts people can trust: verified addresses, single-use account tokens (address verification,
 * password reset, notice unsubscription), the mail outbox, notice settings, deleted accounts, and
 * trusted partners.
 * - users.email_verified_at: Unix seconds when the current address was verified; null: unverified.
 *   Addresses given before this migration count as unverified.
 * - users.deleted_at: Unix seconds; a deleted account keeps its row (the username stays taken and
 *   the ledger keeps its accounts) with every personal field emptied.
 * - users.notice_*: 1 when the user wants that notice by e-mail (all on by default).
 * - account_tokens: SHA-256 of the token, what it is for, for whom, `detail` (the address being
 *   verified, or the notice an unsubscription turns off), expiry and first use.
 * - mail_outbox: one row per message, written in the transaction of its cause, sent by the mail
 *   dispatcher (claim with a lease, retries with backoff); `params` is emptied once sent.
 * - partners.trusted: the partner may assign global identities (`email:`, `twitter:`).
 */
import { type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeAccounts(engine: Engine) {
  const big = engine === 'postgres' ? 'bigint' : 'integer';
  const id = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('users').addColumn('email_verified_at', big).execute();
      await db.schema.alterTable('users').addColumn('deleted_at', big).execute();
      for (const notice of ['notice_receipt', 'notice_renewal', 'notice_thing', 'notice_application']) {
        await db.schema
          .alterTable('users')
          .addColumn(notice, 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
      }
      await db.schema
        .alterTable('partners')
        .addColumn('trusted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('account_tokens')
        .addColumn('id', id, (c) =>
          engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
        )
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('used_at', big)
        .execute();
      await db.schema.createIndex('account_tokens_user').on('account_tokens').columns(['user_id', 'purpose']).execute();

      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', id, (c) =>
          engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
        )
        .addColumn('message_id', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('user_id', big)
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', big, (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('sent_at', big)
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('mail_outbox_user').on('mail_outbox').column('user_id').execute();
    },
  };
}
