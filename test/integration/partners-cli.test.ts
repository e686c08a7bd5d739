/**
 * The operator commands for partners and webhooks (`tipjar partners …`, `tipjar webhooks …`),
 * run as the real CLI against a test database on both engines. Webhook URLs point at 127.0.0.1
 * only (never resolved elsewhere).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { runTipjar } from '../helpers/processes.ts';
import { uniqueName } from '../helpers/factories.ts';
import { openDatabase } from '../../src/db/connect.ts';

describe.each(ENGINES)('tipjar partners and webhooks commands on %s', (engine) => {
  let database: { url: string; remove(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL: 'http://tipjar.test',
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(async () => database.remove());

  /** Runs the real CLI on the test database. */
  const cli = (...args: string[]) => runTipjar(args, env);

  it(
    'creates, lists, updates (trust included) and deletes a partner; refuses private URLs without the allowance',
    { timeout: 120_000 },
    async () => {
      const ns = uniqueName('acme');
      const refused = await cli('partners', 'create', '--namespace', ns, '--webhook-url', 'http://127.0.0.1:9/hook');
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(
        'error: webhook-url: refused: 127.0.0.1 is a loopback address (an operator may allow it with --allow-private-webhook)',
      );

      const created = await cli(
        'partners',
        'create',
        '--namespace',
        ns,
        '--webhook-url',
        'http://127.0.0.1:9/hook',
        '--allow-private-webhook',
      );
      expect(created.code).toBe(0);
      const lines = created.stdout.trim().split('\n');
      expect(lines[0]).toBe(
        `created partner ${ns} (webhook http://127.0.0.1:9/hook, events pendingclickcreate, private webhook address allowed)`,
      );
      expect(lines[1]).toMatch(/^client_id: {6}[0-9a-f]{40}$/);
      expect(lines[2]).toMatch(/^client_secret: {2}\S{20,}$/);
      expect(lines[3]).toMatch(/^signing_secret: whsec_[A-Za-z0-9+/]{32}$/);
      const clientId = lines[1]!.split(/\s+/)[1]!;
      const secret = lines[3]!.split(/\s+/)[1]!;

      const dup = await cli(
        'partners',
        'create',
        '--namespace',
        ns,
        '--webhook-url',
        'http://127.0.0.1:9/hook',
        '--allow-private-webhook',
      );
      expect(dup.stderr.trim()).toBe(`error: namespace "${ns}" is taken`);
      expect(
        (await cli('partners', 'create', '--namespace', 'Bad NS', '--webhook-url', 'http://127.0.0.1:9/h')).code,
      ).toBe(1);

      const list = await cli('partners', 'list');
      expect(
        list.stdout
          .trim()
          .split('\n')
          .find((l) => l.startsWith(`${ns}\t`)),
      ).toMatch(
        new RegExp(
          `^${ns}\\t${clientId}\\tpendingclickcreate\\tprivate\\tuntrusted\\t\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\thttp://127\\.0\\.0\\.1:9/hook$`,
        ),
      );

      const badEvents = await cli('partners', 'update', ns, '--events', 'pendingclickcreate,nope');
      expect(badEvents.stderr.trim()).toBe('error: events: unknown event "nope" (known: pendingclickcreate)');
      const noPrivate = await cli('partners', 'update', ns, '--no-allow-private-webhook');
      expect(noPrivate.code).toBe(1);
      const rotated = await cli(
        'partners',
        'update',
        ns,
        '--rotate-secret',
        '--webhook-url',
        'http://127.0.0.1:10/new',
      );
      expect(rotated.code).toBe(0);
      const newSecret = /signing_secret: (whsec_\S+)/.exec(rotated.stdout)![1]!;
      expect(newSecret).not.toBe(secret);

      const trustedRow = async () => {
        const db = await openDatabase(database.url);
        try {
          return await db.db
            .selectFrom('partners')
            .select(['webhook_url', 'signing_secret', 'allow_private_webhook', 'trusted'])
            .where('namespace', '=', ns)
            .executeTakeFirst();
        } finally {
          await db.close();
        }
      };
      expect(await trustedRow()).toEqual({
        webhook_url: 'http://127.0.0.1:10/new',
        signing_secret: newSecret,
        allow_private_webhook: 1,
        trusted: 0,
      });

      // Trust: --trusted lets it verify global identities, --untrusted takes that back; shown in the list.
      const both = await cli('partners', 'update', ns, '--trusted', '--untrusted');
      expect(both.code).toBe(1);
      expect(both.stderr.trim()).toBe('error: give --trusted or --untrusted, not both');
      const trusted = await cli('partners', 'update', ns, '--trusted');
      expect(trusted.code).toBe(0);
      expect(trusted.stdout.trim()).toBe(
        `updated partner ${ns} (webhook http://127.0.0.1:10/new, events pendingclickcreate, private webhook address allowed, trusted with global identities)`,
      );
      expect(await trustedRow()).toMatchObject({ trusted: 1, allow_private_webhook: 1 });
      const listed = (await cli('partners', 'list')).stdout.split('\n').find((l) => l.startsWith(`${ns}\t`))!;
      expect(listed.split('\t')[4]).toBe('trusted');
      // another change keeps the trust
      expect((await cli('partners', 'update', ns, '--events', 'pendingclickcreate')).code).toBe(0);
      expect(await trustedRow()).toMatchObject({ trusted: 1 });
      expect((await cli('partners', 'update', ns, '--untrusted')).code).toBe(0);
      expect(await trustedRow()).toMatchObject({ trusted: 0 });
      const relisted = (await cli('partners', 'list')).stdout.split('\n').find((l) => l.startsWith(`${ns}\t`))!;
      expect(relisted.split('\t')[4]).toBe('untrusted');

      expect((await cli('webhooks', 'deliver')).stdout.trim()).toBe('0 attempted: 0 delivered, 0 to retry, 0 failed');
      expect((await cli('webhooks', 'log', '--partner', ns)).stdout.trim()).toBe(`no deliveries for ${ns}`);
      expect((await cli('webhooks', 'redeliver', '12345')).stderr.trim()).toBe('error: No webhook delivery 12345');

      expect((await cli('partners', 'delete', ns)).stdout.trim()).toBe(`deleted partner ${ns}`);
      expect((await cli('partners', 'list')).stdout).not.toContain(ns);
      expect((await cli('partners', 'delete', ns)).stderr.trim()).toBe(`error: No partner with namespace "${ns}"`);
    },
  );
});
