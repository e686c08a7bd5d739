/**
 * Client-application commands of `tipjar` (issue 6, DECISIONS.md "OAuth 2": clients register on
 * the website and by an operator command): `apps create`, `apps list`, `apps rotate-secret`,
 * `apps delete`. Registered on the program by cli/main.ts.
 */
import type { Command } from 'commander';
import type { Services } from '../domain/services.ts';
import { getUser } from '../domain/users.ts';
import { createClient, deleteClient, listClientsOwnedBy, rotateClientSecret } from '../auth/oauth/clients.ts';

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

export function registerAppsCommands(program: Command, withServices: WithServices): void {
  const apps = program.command('apps').description('manage OAuth client applications');

  apps
    .command('create')
    .description('register a client application; prints its client id and secret (the secret is shown only once)')
    .requiredOption('--name <name>', 'name shown to users on the consent page (1–100 characters)')
    .requiredOption('--callback-domain <domain>', 'host name every redirect_uri must lie in, e.g. app.example.com (no scheme or path)')
    .option('--owner <username>', 'user who owns the application on the website (default: none, operator-managed)')
    .action(async (opts: { name: string; callbackDomain: string; owner?: string }) => {
      const created = await withServices(async (s) => {
        const ownerUserId = opts.owner === undefined ? null : (await getUser(s, opts.owner)).id;
        return createClient(s, { name: opts.name, callbackDomain: opts.callbackDomain, ownerUserId });
      });
      console.log(`created application "${created.client.name}" (callback domain ${created.client.callbackDomain}${opts.owner ? `, owner ${opts.owner}` : ''})`);
      console.log(`client_id:     ${created.clientId}`);
      console.log(`client_secret: ${created.clientSecret}`);
      console.log('store the secret now: it is not shown again (apps rotate-secret issues a new one)');
    });

  apps
    .command('list')
    .description("list a user's client applications (tab-separated: client id, callback domain, created, name)")
    .requiredOption('--owner <username>', 'the owning user')
    .action(async (opts: { owner: string }) => {
      const clients = await withServices(async (s) => listClientsOwnedBy(s, (await getUser(s, opts.owner)).id));
      if (!clients.length) console.log(`${opts.owner} has no applications`);
      for (const c of clients) console.log([c.clientId, c.callbackDomain, iso(c.createdAt), c.name].join('\t'));
    });

  apps
    .command('rotate-secret <client_id>')
    .description('replace the client secret (the old one stops working at once); prints the new secret')
    .action(async (clientId: string) => {
      const { clientSecret } = await withServices((s) => rotateClientSecret(s, clientId));
      console.log(`client_secret: ${clientSecret}`);
    });

  apps
    .command('delete <client_id>')
    .description('delete a client application and revoke every token issued to it')
    .action(async (clientId: string) => {
      const { revokedTokens } = await withServices((s) => deleteClient(s, clientId));
      console.log(`deleted ${clientId}; ${revokedTokens} token(s) revoked`);
    });
}
