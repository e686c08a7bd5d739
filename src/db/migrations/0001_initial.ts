/**
 * The whole data model. Portable SQL: integers for booleans and Unix-second times,
 * text for strings; only the id column type differs by engine.
 */
import { sql, type Kysely, type CreateTableBuilder } from 'kysely';
import type { Engine } from '../connect.ts';

type Builder = CreateTableBuilder<string, never>;

export function makeInitial(engine: Engine) {
  const big = engine === 'postgres' ? 'bigint' : 'integer';
  /** `integer primary key` is SQLite's rowid alias; PostgreSQL gets an identity column. */
  const withId = (t: Builder): Builder =>
    engine === 'postgres'
      ? t.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      : t.addColumn('id', 'integer', (c) => c.primaryKey());
  const str = (t: Builder, name: string) => t.addColumn(name, 'text', (c) => c.notNull().defaultTo(''));

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let t = withId(db.schema.createTable('users'));
      t = t
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().unique());
      for (const f of ['email', 'firstname', 'lastname', 'avatar', 'about', 'city', 'country', 'url']) t = str(t, f);
      await t
        .addColumn('password_hash', 'text')
        .addColumn('registered_at', big, (c) => c.notNull())
        .addColumn('balance_cents', big, (c) => c.notNull().defaultTo(0))
        .addColumn('budget_cents', big, (c) => c.notNull().defaultTo(0))
        .addColumn('hide_tips', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', big, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('users_email').on('users').column('email').execute();

      t = withId(db.schema.createTable('things'));
      t = t.addColumn('url', 'text', (c) => c.notNull()).addColumn('url_key', 'text', (c) => c.notNull());
      for (const f of ['title', 'description', 'category', 'language', 'tags', 'image']) t = str(t, f);
      await t
        .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('owner_user_id', big, (c) => c.references('users.id'))
        .addColumn('owner_identity', 'text')
        .addColumn('tips', big, (c) => c.notNull().defaultTo(0))
        .addColumn('tips_user_count', big, (c) => c.notNull().defaultTo(0))
        .addColumn('last_tip_at', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull().defaultTo(0))
        .addColumn('deleted_at', big)
        .addCheckConstraint('things_one_owner', sql`(owner_user_id is null) <> (owner_identity is null)`)
        .execute();
      await db.schema
        .createIndex('things_url_key')
        .on('things')
        .column('url_key')
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
      await db.schema.createIndex('things_owner_user').on('things').columns(['owner_user_id', 'created_at']).execute();
      await db.schema.createIndex('things_owner_identity').on('things').column('owner_identity').execute();
      await db.schema.createIndex('things_created').on('things').column('created_at').execute();

      await db.schema
        .createTable('thing_tags')
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('tag', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('thing_tags_pk', ['thing_id', 'tag'])
        .execute();
      await db.schema.createIndex('thing_tags_tag').on('thing_tags').columns(['tag', 'thing_id']).execute();

      await withId(db.schema.createTable('oauth_clients'))
        .addColumn('client_id', 'text', (c) => c.notNull().unique())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('callback_domain', 'text', (c) => c.notNull())
        .addColumn('owner_user_id', big, (c) => c.references('users.id'))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull().defaultTo(0))
        .addColumn('deleted_at', big)
        .execute();

      await withId(db.schema.createTable('tips'))
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('tipper_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull().defaultTo('api'))
        .addColumn('client_id', big, (c) => c.references('oauth_clients.id'))
        .addUniqueConstraint('tips_once_per_period', ['thing_id', 'tipper_id', 'period'])
        .execute();
      await db.schema.createIndex('tips_tipper').on('tips').columns(['tipper_id', 'created_at']).execute();
      await db.schema.createIndex('tips_thing').on('tips').columns(['thing_id', 'created_at']).execute();
      await db.schema.createIndex('tips_period').on('tips').columns(['period', 'tipper_id']).execute();
      await db.schema.createIndex('tips_created').on('tips').column('created_at').execute();

      await withId(db.schema.createTable('subscriptions'))
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('started_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('subscriptions_user_thing', ['user_id', 'thing_id'])
        .execute();
      await db.schema.createIndex('subscriptions_thing').on('subscriptions').column('thing_id').execute();

      await withId(db.schema.createTable('oauth_codes'))
        .addColumn('code_hash', 'text', (c) => c.notNull().unique())
        .addColumn('client_id', big, (c) => c.notNull().references('oauth_clients.id'))
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('redirect_uri_given', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('scope', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('code_challenge', 'text')
        .addColumn('code_challenge_method', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('used_at', big)
        .execute();

      await withId(db.schema.createTable('access_tokens'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('client_id', big, (c) => c.references('oauth_clients.id'))
        .addColumn('code_id', big, (c) => c.references('oauth_codes.id'))
        .addColumn('scope', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();
      await db.schema.createIndex('access_tokens_user').on('access_tokens').columns(['user_id', 'client_id']).execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('ledger_accounts'))
        .addColumn('account_key', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('user_id', big, (c) => c.references('users.id'))
        .addColumn('identity', 'text')
        .addColumn('balance_cents', big, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await withId(db.schema.createTable('ledger_transactions'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('period', 'text')
        .addColumn('reference', 'text', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await withId(db.schema.createTable('ledger_entries'))
        .addColumn('transaction_id', big, (c) => c.notNull().references('ledger_transactions.id'))
        .addColumn('account_id', big, (c) => c.notNull().references('ledger_accounts.id'))
        .addColumn('amount_cents', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ledger_entries_account').on('ledger_entries').column('account_id').execute();
      await db.schema.createIndex('ledger_entries_transaction').on('ledger_entries').column('transaction_id').execute();

      await db.schema
        .createTable('periods')
        .addColumn('period', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        .addColumn('settled_at', big)
        .addColumn('locked_by', 'text')
        .addColumn('locked_until', big)
        .execute();

      await withId(db.schema.createTable('activities'))
        .addColumn('actor_user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('verb', 'text', (c) => c.notNull())
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('thing_owner_user_id', big, (c) => c.references('users.id'))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('activities_actor')
        .on('activities')
        .columns(['actor_user_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('activities_owner')
        .on('activities')
        .columns(['thing_owner_user_id', 'created_at'])
        .execute();

      await withId(db.schema.createTable('partners'))
        .addColumn('namespace', 'text', (c) => c.notNull().unique())
        .addColumn('client_id', big, (c) => c.notNull().references('oauth_clients.id'))
        .addColumn('webhook_url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('signing_secret', 'text', (c) => c.notNull())
        .addColumn('allow_private_webhook', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('identities')
        .addColumn('identity', 'text', (c) => c.primaryKey())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id'))
        .addColumn('partner_id', big, (c) => c.references('partners.id'))
        .addColumn('claimed_at', big, (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('webhook_deliveries'))
        .addColumn('message_id', 'text', (c) => c.notNull().unique())
        .addColumn('partner_id', big, (c) => c.notNull().references('partners.id'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', big, (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('delivered_at', big)
        .addColumn('last_error', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await withId(db.schema.createTable('webhook_attempts'))
        .addColumn('delivery_id', big, (c) => c.notNull().references('webhook_deliveries.id'))
        .addColumn('attempted_at', big, (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();
    },
  };
}
