/**
 * Money in: `/funds`, where a logged-in user adds money to their balance through the payment
 * provider chosen by PAYMENT_PROVIDER (src/domain/money/provider.ts websiteProvider; DECISIONS.md
 * "Money"). With `demo` the money is simulated and credited at once, and the page says so; with
 * `none` the page says the operator adds funds, and the form is refused.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { getMoneySummary, setMonthlyBudget } from '../../domain/money/account.ts';
import { addFunds, MAX_FUNDING_CENTS, parseBudgetUnits, parseFundingAmount } from '../../domain/money/funding.ts';
import { MAX_BUDGET_CENTS } from '../../domain/money/means.ts';
import { websiteProvider } from '../../domain/money/provider.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';
import { safeReturnPath } from '../return-path.ts';

/** A fresh idempotency key for one rendering of the form (base64url, 24 characters). */
function newKey(): string {
  return randomBytes(18).toString('base64url');
}

/** Where the funds page is. */
const FUNDS_PATH = '/funds';

/** Registers GET /funds and POST /funds on the website plugin. */
export function fundsRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;
  const provider = websiteProvider(ctx.config.paymentProvider);

  /**
   * Renders the funds page for `userId`: balance and monthly budget, whether the money is
   * simulated, and (when a provider is on) the form with `extra.amount` and `extra.budget` as
   * typed (the budget defaults to the current one when above 0), `extra.returnTo` (where a
   * success goes) and an idempotency key (`extra.key`, else a new one).
   */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    extra: { error?: string; notice?: string; amount?: string; budget?: string; key?: string; returnTo: string },
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
        maxBudget: MAX_BUDGET_CENTS,
        amount: '',
        ...extra,
        key: extra.key ?? newKey(),
      },
      status,
    );
  }

  /** The same-site path a funds form returns to: `return_to` when safe and not /funds itself, else /funds. */
  const returnOf = (raw: string) => {
    const path = raw === '' ? FUNDS_PATH : safeReturnPath(raw, ctx.config.siteUrl);
    return path === '/' ? FUNDS_PATH : path;
  };

  /**
   * GET /funds — the balance, the monthly budget and the form that adds money (fields `amount` in
   * currency units, e.g. `10.00`; `budget`, the monthly budget in currency units, optional; hidden
   * `key`, a fresh idempotency key; hidden `return_to`, from the query's `return_to`; `_csrf`).
   * With PAYMENT_PROVIDER=demo the page says the money is simulated; with `none` it has no form
   * and says the operator adds funds. The one-time notice `funded` shows the confirmation.
   * Log-in required.
   */
  app.get<{ Querystring: { return_to?: unknown } }>(FUNDS_PATH, async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const returnTo = returnOf(field(request.query as Record<string, unknown>, 'return_to'));
    return render(request, reply, request.webSession.userId, { notice: noticeOf(request), returnTo });
  });

  /**
   * POST /funds — fields `amount` (currency units: more than 0, at most 1000.00, at most two
   * decimals after a point), `budget` (optional: the monthly budget in currency units, 0 to
   * MAX_BUDGET_CENTS/100; empty leaves the budget as it is), `key` (the form's idempotency key,
   * 16–64 base64url characters), `return_to` (a same-site path; default /funds), `_csrf`.
   * Both amounts are checked before anything is written. Credits the amount through the provider
   * once per (user, key): a form sent again credits nothing more; then sets the budget when given.
   * Success: 303 to return_to with the one-time notice `funded` (or `funded-budget`). A bad
   * amount, budget or key: 400, the form again with the reason, nothing written.
   * PAYMENT_PROVIDER=none: 403 page, nothing credited. Not logged in: to the log-in page, then
   * back to /funds.
   */
  app.post(FUNDS_PATH, async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, FUNDS_PATH);
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
    const budget = field(form, 'budget').trim();
    const key = field(form, 'key');
    const returnTo = returnOf(field(form, 'return_to'));
    const { userId, username } = request.webSession;
    try {
      const cents = parseFundingAmount(amount);
      const budgetCents = budget === '' ? undefined : parseBudgetUnits(budget);
      await addFunds(s, provider, { userId, username, cents, key });
      if (budgetCents !== undefined) await setMonthlyBudget(s, userId, budgetCents);
      return redirectWithFlash(reply, returnTo, budgetCents === undefined ? 'funded' : 'funded-budget', ctx.secure);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') {
        const keep = /^[A-Za-z0-9_-]{16,64}$/.test(key) ? key : undefined;
        return render(request, reply, userId, { error: err.message, amount, budget, key: keep, returnTo }, 400);
      }
      throw err;
    }
  });
}
