/**
 * The operator's user commands about addresses, run as the real CLI against a test database on
 * both engines: `tipjar users create … --email E` (unverified, a verification link queued),
 * `--verified` (verified at once, nothing queued), and `tipjar users verify <username>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { runTipjar } from '../helpers/processes.ts';
import { uniqueName } from '../helpers/factories.ts';

describe.each(ENGINES)('tipjar users create --email/--verified and users verify on %s', (engine) => {
  let database: { url: string; remove(): Promise<void> };
  let env: Record<string, string>;
  let db: Database | undefined;

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL: 'http://tipjar.test',
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(async () => {
    await db?.close();
    await database.remove();
  });

  /** Runs the real CLI on the test database. */
  const cli = (...args: string[]) => runTipjar(args, env);
  /** The database the CLI wrote (opened once the first command has migrated it). */
  const open = async () => (db ??= await openDatabase(database.url));
  const user = async (username: string) =>
    (await open()).db
      .selectFrom('users')
      .select(['id', 'email', 'email_verified_at'])
      .where('username', '=', username)
      .executeTakeFirst();
  const mailsTo = async (address: string) =>
    (await open()).db.selectFrom('mail_outbox').select(['kind', 'status']).where('recipient', '=', address).execute();
  const liveLinks = async (userId: number) =>
    (await open()).db
      .selectFrom('account_tokens')
      .select('id')
      .where('user_id', '=', userId)
      .where('purpose', '=', 'verify_email')
      .where('used_at', 'is', null)
      .where('expires_at', '>', Math.floor(Date.now() / 1000))
      .execute();

  it(
    'creates an unverified address with a queued link, or a verified one with --verified; users verify marks it',
    { timeout: 180_000 },
    async () => {
      const ada = uniqueName('ada');
      const adaMail = `${ada}@example.com`;
      const created = await cli('users', 'create', ada, '--email', adaMail);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout.trim()).toMatch(
        new RegExp(`^created user ${ada} \\(id \\d+\\); verification link queued for ${adaMail}$`),
      );
      const adaRow = (await user(ada))!;
      expect(adaRow).toMatchObject({ email: adaMail, email_verified_at: null });
      expect(await mailsTo(adaMail)).toEqual([{ kind: 'verify_email', status: 'pending' }]);
      expect(await liveLinks(adaRow.id)).toHaveLength(1);

      const bob = uniqueName('bob');
      const bobMail = `${bob}@example.com`;
      const verified = await cli('users', 'create', bob, '--email', bobMail, '--verified');
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout.trim()).toMatch(
        new RegExp(`^created user ${bob} \\(id \\d+\\); address ${bobMail} verified$`),
      );
      const bobRow = (await user(bob))!;
      expect(bobRow.email_verified_at).toEqual(expect.any(Number));
      expect(await mailsTo(bobMail)).toEqual([]);
      expect(await liveLinks(bobRow.id)).toHaveLength(0);

      const carol = uniqueName('carol');
      const noAddress = await cli('users', 'create', carol, '--verified');
      expect(noAddress.code).toBe(1);
      expect(noAddress.stderr.trim()).toBe('error: Only a given e-mail address can be marked verified');
      expect(await user(carol)).toBeUndefined();

      const marked = await cli('users', 'verify', ada.toUpperCase());
      expect(marked.code, marked.stderr).toBe(0);
      expect(marked.stdout.trim()).toBe(`${ada}: address ${adaMail} verified`);
      expect((await user(ada))!.email_verified_at).toEqual(expect.any(Number));
      expect(await liveLinks(adaRow.id)).toHaveLength(0); // the mailed link ended
      expect((await cli('users', 'verify', ada)).stdout.trim()).toBe(`${ada}: address ${adaMail} was verified already`);

      const ghost = await cli('users', 'verify', uniqueName('ghost'));
      expect(ghost.code).toBe(1);
      expect(ghost.stderr.trim()).toBe('error: User not found');
      const dave = uniqueName('dave');
      expect((await cli('users', 'create', dave)).stdout.trim()).toMatch(
        new RegExp(`^created user ${dave} \\(id \\d+\\)$`),
      );
      const bare = await cli('users', 'verify', dave);
      expect(bare.code).toBe(1);
      expect(bare.stderr.trim()).toBe(`error: ${dave} has no e-mail address`);
    },
  );
});
