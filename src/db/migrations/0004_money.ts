/**
 * Money and subscriptions:
 * - `ledger_entries.tip_id`: the tip a settlement share pays for, so every tip of a settled period
 *   can be traced to exactly one credit entry (`tipjar ledger check`), deleted things included;
 * - `periods.renewed_at`: when the subscriptions of the period were renewed (Unix seconds), so the
 *   scheduler renews each period once;
 * - `subscription_renewals`: one row per subscriber, thing and period with the outcome of the
 *   renewal tip (`tipped`, `no_means`, `tip_once`, `tip_owner`, `deleted`), the idempotency key of
 *   `tipjar subscriptions renew` and what a user is told about skipped renewals.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeMoney(engine: Engine) {
  const big = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('ledger_entries')
        .addColumn('tip_id', big, (c) => c.references('tips.id'))
        .execute();
      await db.schema.createIndex('ledger_entries_tip').on('ledger_entries').column('tip_id').execute();
      await db.schema.alterTable('periods').addColumn('renewed_at', big).execute();
      await db.schema
        .createTable('subscription_renewals')
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('tip_id', big, (c) => c.references('tips.id'))
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('subscription_renewals_pk', ['period', 'user_id', 'thing_id'])
        .execute();
      await db.schema
        .createIndex('subscription_renewals_user')
        .on('subscription_renewals')
        .columns(['user_id', 'period'])
        .execute();
    },
  };
}
