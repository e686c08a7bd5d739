/**
 * Account data commands of `tipjar users`: `users export <username> [--output FILE]` (the JSON
 * document of src/domain/account-data.ts exportUserData) and `users delete <username> --yes`
 * (deleteAccount, for operators: no password asked). Registered on the `users` command by
 * cli/main.ts; each action imports what it runs when it runs.
 */
import type { Command } from 'commander';
import { DomainError } from '../domain/errors.ts';
import type { Services } from '../domain/services.ts';

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

export function registerAccountDataCommands(users: Command, withServices: WithServices): void {
  users
    .command('export <username>')
    .description("write everything held about a user's account as JSON (stdout, or --output FILE)")
    .option('--output <file>', 'write to this file (created with mode 0600; replaced if it exists)')
    .action(async (username: string, opts: { output?: string }) => {
      const { getUser } = await import('../domain/users.ts');
      const { exportUserData } = await import('../domain/account-data.ts');
      const doc = await withServices(async (s) => exportUserData(s, (await getUser(s, username)).id));
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (opts.output === undefined) {
        process.stdout.write(text);
        return;
      }
      const { writeFile } = await import('node:fs/promises');
      await writeFile(opts.output, text, { mode: 0o600 });
      console.error(`wrote the data of ${doc.profile.username} to ${opts.output}`);
    });

  users
    .command('delete <username>')
    .description(
      'delete an account: personal data, things, sessions, tokens, applications go; the money left is forfeited; the username stays taken',
    )
    .option('--yes', 'confirm: the deletion cannot be undone')
    .action(async (username: string, opts: { yes?: boolean }) => {
      if (!opts.yes)
        throw new DomainError(
          'invalid_parameters',
          `not deleted: deleting ${username} cannot be undone; run again with --yes to confirm`,
        );
      const { getUser } = await import('../domain/users.ts');
      const { deleteAccount } = await import('../domain/account-data.ts');
      const r = await withServices(async (s) => deleteAccount(s, (await getUser(s, username)).id));
      console.log(
        `deleted user ${r.username} (id ${r.userId}): ${r.forfeitedCents} cents forfeited, ${r.thingsDeleted} things deleted, ${r.subscriptionsRemoved} subscriptions removed, ${r.applicationsDeleted} applications deleted (${r.applicationTokensRevoked} of their tokens revoked), ${r.tokensDeleted} tokens and ${r.sessionsEnded} sessions ended`,
      );
    });
}
