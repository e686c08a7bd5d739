/**
 * PostgreSQL: function `tips_at_once`, which writes a batch of tips on things owned by users in one
 * call (db/repositories/tips.ts tipAtOnce; docs/adr/0035). For each tip `i` of the arrays, in
 * array order, it runs one statement of data-modifying common table expressions — the checks and
 * writes of domain/tips.ts tipInTransaction, in the same order: the thing exists and is not deleted
 * (its row locked, as an update of its counters would), it is owned by a user other than the
 * tipper, the tipper has means (budget of the period = the fixed one else the setting, > 0 and ≤
 * the balance), one tip per thing, tipper and period (ON CONFLICT on tips_once_per_period); then
 * the tip, its hour of tip_hours, the period's budget on the tipper's first tip of the period, the
 * thing's counters and the `like` activity. Nothing of a tip is written unless every check passes.
 * Each statement reads a snapshot taken when it starts (READ COMMITTED), so a tip sees the tips of
 * the batch before it. The whole call is one transaction: every tip of it commits, or none.
 *
 * Returns one row per tip: `ord` (its index, 1-based), the thing as THING_COLUMNS reads it (all
 * null when there is no live thing), `has_means`, and `tip_id` and `tips_after` (null unless the
 * tip was written). A thing owned by an identity (pending) is left to the caller (nothing written).
 *
 * Units: `ats` Unix seconds, `hours` Unix hours (tip_hours.hour), `weights` the trend weight of the
 * tip in its hour (db/repositories/search.ts TREND_HALF_LIFE), `periods` 'YYYY-MM'.
 * SQLite has no such function: its group commit runs each tip's transaction (db/transaction.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeTipsAtOnce(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql`create function tips_at_once(
          thing_ids bigint[], tipper_ids bigint[], periods text[], ats bigint[], sources text[],
          client_ids bigint[], hours bigint[], weights float8[])
        returns table (ord integer, id bigint, url text, title text, description text, category text,
          language text, tags text, image text, hidden integer, owner_user_id bigint, owner_identity text,
          tips bigint, tips_user_count bigint, last_tip_at bigint, created_at bigint, updated_at bigint,
          owner_username text, has_means boolean, tip_id bigint, tips_after bigint)
        language plpgsql volatile as $$
        #variable_conflict use_column
        declare
          i integer;
        begin
          for i in 1 .. coalesce(array_length(thing_ids, 1), 0) loop
            return query with
              t as (select things.id, things.url, things.title, things.description, things.category,
                      things.language, things.tags, things.image, things.hidden, things.owner_user_id,
                      things.owner_identity, things.tips, things.tips_user_count, things.last_tip_at,
                      things.created_at, things.updated_at, users.username as owner_username
                    from things left join users on users.id = things.owner_user_id
                    where things.id = thing_ids[i] and things.deleted_at is null for no key update of things),
              m as (select coalesce(pb.budget_cents, u.budget_cents) as budget, u.budget_cents as setting,
                      pb.budget_cents is null as unfixed, u.balance_cents as balance
                    from users as u left join period_budgets as pb on pb.user_id = u.id and pb.period = periods[i]
                    where u.id = tipper_ids[i]),
              ok as (select m.setting, m.unfixed from t, m
                     where t.owner_user_id is not null and t.owner_user_id <> tipper_ids[i]
                       and m.budget > 0 and m.balance >= m.budget),
              tip as (insert into tips (thing_id, tipper_id, period, created_at, source, client_id)
                      select thing_ids[i], tipper_ids[i], periods[i], ats[i], sources[i], client_ids[i] from ok
                      on conflict (thing_id, tipper_id, period) do nothing returning tips.id),
              hour as (insert into tip_hours (thing_id, hour, tips, first_at, last_at, weight)
                       select thing_ids[i], hours[i], 1, ats[i], ats[i], weights[i] from tip
                       on conflict (thing_id, hour) do update set tips = tip_hours.tips + 1,
                         first_at = least(tip_hours.first_at, excluded.first_at),
                         last_at = greatest(tip_hours.last_at, excluded.last_at),
                         weight = tip_hours.weight + excluded.weight),
              budget as (insert into period_budgets (user_id, period, budget_cents, fixed_at)
                         select tipper_ids[i], periods[i], ok.setting, ats[i] from tip, ok where ok.unfixed
                         on conflict (user_id, period) do nothing),
              counted as (update things set tips = things.tips + 1, last_tip_at = ats[i],
                            tips_user_count = things.tips_user_count + case when exists (
                              select 1 from tips as earlier where earlier.thing_id = thing_ids[i]
                                and earlier.tipper_id = tipper_ids[i] and earlier.period <> periods[i]) then 0 else 1 end
                          where things.id = thing_ids[i] and exists (select 1 from tip) returning things.tips),
              activity as (insert into activities (actor_user_id, verb, thing_id, thing_owner_user_id, created_at)
                           select tipper_ids[i], 'like', thing_ids[i], t.owner_user_id, ats[i] from tip, t)
            select i, t.id, t.url, t.title, t.description, t.category, t.language, t.tags, t.image, t.hidden,
              t.owner_user_id, t.owner_identity, t.tips, t.tips_user_count, t.last_tip_at, t.created_at,
              t.updated_at, t.owner_username, (select m.budget > 0 and m.balance >= m.budget from m),
              (select tip.id from tip), (select counted.tips from counted)
            from (select 1) as one left join t on true;
          end loop;
        end
        $$`.execute(db);
    },
  };
}
