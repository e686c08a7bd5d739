/**
 * The budget of each tipper in each period (DECISIONS.md "Money"): `period_budgets` holds, per user
 * and period ('YYYY-MM'), the monthly budget in cents that was in force at the user's first tip of
 * that period (`fixed_at`, Unix seconds). The settlement of the period uses it; a budget changed
 * later in the period applies from the next one.
 * Tips of periods not yet settled when the migration runs get the budget in force now, at the
 * time of their tipper's first tip of the period.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makePeriodBudgets(engine: Engine) {
  const big = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('period_budgets')
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('budget_cents', big, (c) => c.notNull())
        .addColumn('fixed_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('period_budgets_pk', ['user_id', 'period'])
        .execute();
      await sql`insert into period_budgets (user_id, period, budget_cents, fixed_at)
        select tips.tipper_id, tips.period, min(users.budget_cents), min(tips.created_at)
        from tips join users on users.id = tips.tipper_id
        where not exists (select 1 from periods where periods.period = tips.period and periods.status = 'settled')
        group by tips.tipper_id, tips.period`.execute(db);
    },
  };
}
