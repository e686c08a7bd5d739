/**
 * Client-application commands of `tipjar` (DECISIONS.md "OAuth 2": clients register on the website
 * and by an operator command): `apps create`, `apps list`, `apps redirect-uris`,
 * `apps rotate-secret`, `apps delete`. Registered on the program by cli/main.ts; each action
 * imports the modules it runs when it runs, so that `tipjar --help` loads none of them.
 */
import type { Command } from 'commander';
import type { Services } from '../domain/services.ts';
import { InvalidParametersError, NotFoundError } from '../domain/errors.ts';
import { REDIRECT_URIS_MAX } from '../auth/oauth/redirect.ts';

/** The client operations and the user lookup, loaded by the action that runs one. */
const clientOperations = async () => ({
  ...(await import('../auth/oauth/clients.ts')),
  getUser: (await import('../domain/users.ts')).getUser,
});

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

/** commander collector of a repeatable option. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

const REDIRECT_URI_HELP = `an exact redirect URI (repeatable, at most ${REDIRECT_URIS_MAX}); once any is registered, only these match`;

export function registerAppsCommands(program: Command, withServices: WithServices): void {
  const apps = program.command('apps').description('manage OAuth client applications');

  apps
    .command('create')
    .description('register a client application; prints its client id and secret (the secret is shown only once)')
    .requiredOption('--name <name>', 'name shown to users on the consent page (1–100 characters)')
    .requiredOption(
      '--callback-domain <domain>',
      'host name every redirect_uri must lie in, e.g. app.example.com (no scheme or path)',
    )
    .option('--redirect-uri <uri>', REDIRECT_URI_HELP, collect)
    .option('--owner <username>', 'user who owns the application on the website (default: none, operator-managed)')
    .action(async (opts: { name: string; callbackDomain: string; redirectUri?: string[]; owner?: string }) => {
      const { createClient, getUser } = await clientOperations();
      const created = await withServices(async (s) => {
        const ownerUserId = opts.owner === undefined ? null : (await getUser(s, opts.owner)).id;
        return createClient(s, {
          name: opts.name,
          callbackDomain: opts.callbackDomain,
          redirectUris: opts.redirectUri,
          ownerUserId,
        });
      });
      console.log(
        `created application "${created.client.name}" (callback domain ${created.client.callbackDomain}${opts.owner ? `, owner ${opts.owner}` : ''})`,
      );
      for (const uri of created.client.redirectUris) console.log(`redirect_uri:  ${uri}`);
      console.log(`client_id:     ${created.clientId}`);
      console.log(`client_secret: ${created.clientSecret}`);
      console.log('store the secret now: it is not shown again (apps rotate-secret issues a new one)');
    });

  apps
    .command('list')
    .description("list a user's client applications (tab-separated: client id, callback domain, created, name)")
    .requiredOption('--owner <username>', 'the owning user')
    .action(async (opts: { owner: string }) => {
      const { listClientsOwnedBy, getUser } = await clientOperations();
      const clients = await withServices(async (s) => listClientsOwnedBy(s, (await getUser(s, opts.owner)).id));
      if (!clients.length) console.log(`${opts.owner} has no applications`);
      for (const c of clients) console.log([c.clientId, c.callbackDomain, iso(c.createdAt), c.name].join('\t'));
    });

  apps
    .command('redirect-uris <client_id>')
    .description(
      'show the exact redirect URIs of a client application, one per line; with --redirect-uri, replace them; with --clear, remove them (the callback-domain rule alone applies again)',
    )
    .option('--redirect-uri <uri>', REDIRECT_URI_HELP, collect)
    .option('--clear', 'remove every registered redirect URI')
    .action(async (clientId: string, opts: { redirectUri?: string[]; clear?: boolean }) => {
      const uris = opts.redirectUri ?? [];
      if (opts.clear && uris.length) throw new InvalidParametersError('give --redirect-uri or --clear, not both');
      const { setClientRedirectUris, findClientByClientId } = await clientOperations();
      const client = await withServices(async (s) => {
        if (opts.clear || uris.length) return setClientRedirectUris(s, clientId, uris);
        const found = await findClientByClientId(s, clientId);
        if (!found) throw new NotFoundError('No such application', 'authentication');
        return found;
      });
      if (!client.redirectUris.length)
        console.log(
          `${client.clientId} has no redirect URIs: any redirect_uri in its callback domain ${client.callbackDomain} matches`,
        );
      for (const uri of client.redirectUris) console.log(uri);
    });

  apps
    .command('rotate-secret <client_id>')
    .description('replace the client secret (the old one stops working at once); prints the new secret')
    .action(async (clientId: string) => {
      const { rotateClientSecret } = await clientOperations();
      const { clientSecret } = await withServices((s) => rotateClientSecret(s, clientId));
      console.log(`client_secret: ${clientSecret}`);
    });

  apps
    .command('delete <client_id>')
    .description('delete a client application and revoke every token issued to it')
    .action(async (clientId: string) => {
      const { deleteClient } = await clientOperations();
      const { revokedTokens } = await withServices((s) => deleteClient(s, clientId));
      console.log(`deleted ${clientId}; ${revokedTokens} token(s) revoked`);
    });
}
