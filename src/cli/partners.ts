/**
 * Community-partner and webhook commands of `tipjar` (DECISIONS.md "Partners, pending things,
 * webhooks"): `partners create|list|update|delete` and `webhooks deliver|log|redeliver`.
 * Registered on the program by cli/main.ts; each action imports the domain modules it runs when it
 * runs, so that `tipjar --help` loads none of them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { ValidationError } from '../domain/errors.ts';
import type { Services } from '../domain/services.ts';
import { loadConfig } from '../config/index.ts';

/** The partner operations, loaded by the action that runs one. */
const partnerOperations = () => import('../webhooks/partners.ts');

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return Number(value);
}

export function registerPartnerCommands(program: Command, withServices: WithServices): void {
  const partners = program
    .command('partners')
    .description('manage community partners (namespaces, OAuth clients, webhooks)');

  partners
    .command('create')
    .description('create a partner with its OAuth client and webhook signing secret (both secrets are shown only once)')
    .requiredOption(
      '--namespace <ns>',
      'namespace of its identities, partner:<ns>:<id> (lower-case letters, digits, - and _)',
    )
    .requiredOption(
      '--webhook-url <url>',
      'http(s) URL that receives the events; refused when it resolves to a private, loopback or link-local address',
    )
    .option('--events <kinds>', 'comma-separated event kinds', 'pendingclickcreate')
    .option(
      '--allow-private-webhook',
      'let a private, loopback or link-local webhook address through (operator decision)',
      false,
    )
    .option(
      '--callback-domain <domain>',
      "callback domain of the partner's OAuth client (default: the webhook URL's host)",
    )
    .action(
      async (opts: {
        namespace: string;
        webhookUrl: string;
        events: string;
        allowPrivateWebhook: boolean;
        callbackDomain?: string;
      }) => {
        const { createPartner } = await partnerOperations();
        const r = await withServices((s) =>
          createPartner(s, {
            namespace: opts.namespace,
            webhookUrl: opts.webhookUrl,
            events: opts.events,
            allowPrivateWebhook: opts.allowPrivateWebhook,
            callbackDomain: opts.callbackDomain,
          }),
        );
        console.log(
          `created partner ${r.partner.namespace} (webhook ${r.partner.webhookUrl}, events ${r.partner.events.join(',')}${r.partner.allowPrivateWebhook ? ', private webhook address allowed' : ''})`,
        );
        console.log(`client_id:      ${r.partner.clientId}`);
        console.log(`client_secret:  ${r.clientSecret}`);
        console.log(`signing_secret: ${r.signingSecret}`);
        console.log(
          'store both secrets now: they are not shown again (partners update --rotate-secret issues a new signing secret)',
        );
      },
    );

  partners
    .command('list')
    .description(
      'list partners (tab-separated: namespace, client id, events, private allowed, trusted, created, webhook URL)',
    )
    .action(async () => {
      const { listPartners } = await partnerOperations();
      const list = await withServices((s) => listPartners(s));
      if (!list.length) console.log('no partners');
      for (const p of list)
        console.log(
          [
            p.namespace,
            p.clientId,
            p.events.join(','),
            p.allowPrivateWebhook ? 'private' : 'public',
            p.trusted ? 'trusted' : 'untrusted',
            iso(p.createdAt),
            p.webhookUrl,
          ].join('\t'),
        );
    });

  partners
    .command('update <namespace>')
    .description(
      "change a partner's webhook URL, events, private-address allowance or trust, or rotate its signing secret",
    )
    .option('--webhook-url <url>', 'new webhook URL (checked like at creation)')
    .option('--events <kinds>', 'new comma-separated event kinds')
    .option('--allow-private-webhook', 'allow a private webhook address')
    .option('--no-allow-private-webhook', 'refuse a private webhook address again')
    .option(
      '--trusted',
      'let the partner assign global identities (email:, twitter:) to its users through POST /user/verify',
    )
    .option('--untrusted', 'only identities of its own namespace again (the default)')
    .option('--rotate-secret', 'issue a new signing secret (printed once; the old one stops at once)')
    .action(
      async (
        namespace: string,
        opts: {
          webhookUrl?: string;
          events?: string;
          allowPrivateWebhook?: boolean;
          trusted?: boolean;
          untrusted?: boolean;
          rotateSecret?: boolean;
        },
      ) => {
        if (opts.trusted && opts.untrusted) throw new ValidationError('give --trusted or --untrusted, not both', 'api');
        const { updatePartner } = await partnerOperations();
        const { untrusted, ...changes } = opts;
        const trusted = opts.trusted ? true : untrusted ? false : undefined;
        const r = await withServices((s) => updatePartner(s, namespace, { ...changes, trusted }));
        console.log(
          `updated partner ${r.partner.namespace} (webhook ${r.partner.webhookUrl}, events ${r.partner.events.join(',')}${r.partner.allowPrivateWebhook ? ', private webhook address allowed' : ''}${r.partner.trusted ? ', trusted with global identities' : ''})`,
        );
        if (r.signingSecret) console.log(`signing_secret: ${r.signingSecret}`);
      },
    );

  partners
    .command('delete <namespace>')
    .description(
      'delete a partner, its queued and logged deliveries and its OAuth client (tokens revoked); verified identities stay',
    )
    .action(async (namespace: string) => {
      const { deletePartner } = await partnerOperations();
      await withServices((s) => deletePartner(s, namespace));
      console.log(`deleted partner ${namespace}`);
    });

  const webhooks = program.command('webhooks').description('webhook outbox: deliver, inspect, redeliver');

  webhooks
    .command('deliver')
    .description(
      'deliver every due webhook once now (what the dispatcher in `serve` does every WEBHOOKS_INTERVAL_SECONDS)',
    )
    .action(async () => {
      const cfg = loadConfig(process.env);
      const { deliverDue } = await import('../webhooks/dispatcher.ts');
      const r = await withServices((s) =>
        deliverDue(s, { timeoutMs: cfg.webhooksTimeoutSeconds * 1000, leaseSeconds: cfg.webhooksClaimSeconds }),
      );
      console.log(`${r.attempted} attempted: ${r.delivered} delivered, ${r.retried} to retry, ${r.failed} failed`);
    });

  webhooks
    .command('log')
    .description("a partner's latest deliveries with every attempt (newest first)")
    .requiredOption('--partner <ns>', 'partner namespace')
    .option('--limit <n>', 'deliveries shown', positive, 20)
    .action(async (opts: { partner: string; limit: number }) => {
      const { webhookLog } = await partnerOperations();
      const log = await withServices((s) => webhookLog(s, opts.partner, opts.limit));
      if (!log.length) console.log(`no deliveries for ${opts.partner}`);
      for (const d of log) {
        const when =
          d.status === 'delivered'
            ? `delivered ${iso(d.deliveredAt ?? 0)}`
            : d.status === 'pending'
              ? `next attempt ${iso(d.nextAttemptAt)}`
              : 'failed';
        console.log(
          `#${d.id} ${d.messageId} ${d.event} ${d.status} (${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, ${when}) created ${iso(d.createdAt)} thing ${d.payload.thing_id ?? ''}`,
        );
        for (const a of d.attemptLog)
          console.log(
            `    ${iso(a.attemptedAt)} ${a.statusCode ?? '-'} ${a.durationMs} ms${a.error ? ` ${a.error}` : ''}`,
          );
      }
    });

  webhooks
    .command('redeliver <id>')
    .description(
      'queue a delivery (by its number in `webhooks log`) for an immediate attempt with its original webhook-id',
    )
    .action(async (id: string) => {
      const { redeliver } = await partnerOperations();
      const d = await withServices((s) => redeliver(s, /^\d+$/.test(id) ? Number(id) : -1));
      console.log(`delivery #${d.id} (${d.messageId}) queued for delivery`);
    });
}
