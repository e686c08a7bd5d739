/**
 * Money in: `/funds`, where a logged-in user adds money to their balance through the payment
 * provider chosen by PAYMENT_PROVIDER (src/domain/money/provider.ts websiteProvider; DECISIONS.md
 * "Money"). With `demo` the money is simulated and credited at once, and the page says so; with
 * `none` the page says the operator adds funds, and the form is refused.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { getMoneySummary } from '../../domain/money/account.ts';
import { addFunds, MAX_FUNDING_CENTS, parseFundingAmount } from '../../domain/money/funding.ts';
import { websiteProvider } from '../../domain/money/provider.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** The page's own confirmation (the one-time notice `funded`). */
const FUNDS_NOTICES: Record<string, string> = {
  funded: 'The money was added to your balance.',
};

/** A fresh idempotency key for one rendering of the form (base64url, 24 characters). */
function newKey(): string {
  return randomBytes(18).toString('base64url');
}

/** Registers GET /funds and POST /funds on the website plugin. */
export function fundsRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;
  const provider = websiteProvider(ctx.config.paymentProvider);

  /**
   * Renders the funds page for `userId`: balance and monthly budget, whether the money is
   * simulated, and (when a provider is on) the form with `extra.amount` as typed and an
   * idempotency key (`extra.key`, else a new one).
   */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    extra: { error?: string; notice?: string; amount?: string; key?: string },
    status = 200,
  ): Promise<FastifyReply> {
    const money = await getMoneySummary(s, userId);
    return ctx.page(
      request,
      reply,
      './funds',
      {
        title: 'Add money',
        money,
        enabled: provider !== undefined,
        simulated: provider?.simulated ?? false,
        maxCents: MAX_FUNDING_CENTS,
        amount: '',
        ...extra,
        key: extra.key ?? newKey(),
      },
      status,
    );
  }

  /**
   * GET /funds — the balance, the monthly budget and the form that adds money (fields `amount` in
   * currency units, e.g. `10.00`; hidden `key`, a fresh idempotency key; `_csrf`). With
   * PAYMENT_PROVIDER=demo the page says the money is simulated; with `none` it has no form and
   * says the operator adds funds. The one-time notice `funded` shows the confirmation. Log-in required.
   */
  app.get('/funds', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return render(request, reply, request.webSession.userId, { notice: noticeOf(request, FUNDS_NOTICES) });
  });

  /**
   * POST /funds — fields `amount` (currency units: more than 0, at most 1000.00, at most two
   * decimals after a point), `key` (the form's idempotency key, 16–64 base64url characters), `_csrf`.
   * Credits the amount through the provider once per (user, key): a form sent again changes
   * nothing more. Success: 303 to `/funds` with the one-time notice `funded`. A bad amount or key: 400, the form again
   * with the reason, nothing credited. PAYMENT_PROVIDER=none: 403 page, nothing credited.
   * Not logged in: to the log-in page, then back to /funds.
   */
  app.post('/funds', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/funds');
    if (!provider) {
      return ctx.errorPage(
        request,
        reply,
        403,
        'Adding money is turned off',
        'This site takes no payments: money is added to balances by its operator.',
      );
    }
    const form = formOf(request);
    const amount = field(form, 'amount');
    const key = field(form, 'key');
    const { userId, username } = request.webSession;
    try {
      const cents = parseFundingAmount(amount);
      await addFunds(s, provider, { userId, username, cents, key });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') {
        const keep = /^[A-Za-z0-9_-]{16,64}$/.test(key) ? key : undefined;
        return render(request, reply, userId, { error: err.message, amount, key: keep }, 400);
      }
      throw err;
    }
    return redirectWithFlash(reply, '/funds', 'funded', ctx.secure);
  });
}
