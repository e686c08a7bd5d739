/**
 * The user's settings: profile fields of the User resource, "hide my tips", the monthly budget in
 * currency units (src/domain/money/account.ts setMonthlyBudget), and the account's e-mail address, verified
 * or not. Log-in required. The page's password and address forms are handled in password.ts, the
 * form that sends a new verification link in verify.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { getMoneySummary, parseBudgetCents, setMonthlyBudget } from '../../domain/money/account.ts';
import { parseBudgetUnits } from '../../domain/money/funding.ts';
import { websiteProvider } from '../../domain/money/provider.ts';
import { MAX_BUDGET_CENTS } from '../../domain/money/means.ts';
import { getUserById, parseProfile, updateProfile } from '../../domain/users.ts';
import { isEmailVerified } from '../../domain/verification.ts';
import { renewalsSkippedForMeans } from '../../domain/subscriptions.ts';
import { noticeSettings } from './notices.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { estimatePeriodEarnings, getSupporters } from '../../domain/money/earnings.ts';
import { CHART_PERIODS, earningsChartSvg } from '../earnings-chart.ts';
import { makeHelpers } from '../render.ts';
import { redirectWithFlash } from '../flash.ts';

const PROFILE_FIELDS = ['firstname', 'lastname', 'about', 'city', 'country', 'url', 'avatar'] as const;

/**
 * Renders the settings page of `userId` with `status`: the profile (or `extra.profile`, the form as
 * sent), the money (with the subscriptions not renewed this month for lack of it), the account's
 * address, the e-mail notices, and `extra` (an error or notice; `email`: the address
 * form's value as sent). Other route modules with forms on the page re-render it with this.
 */
export async function renderSettings(
  ctx: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  extra: { error?: string; notice?: string; profile?: Record<string, unknown>; email?: string },
  status = 200,
): Promise<FastifyReply> {
  const s = ctx.services;
  const [user, money, skipped] = await Promise.all([
    getUserById(s, userId),
    getMoneySummary(s, userId),
    renewalsSkippedForMeans(s, userId),
  ]);
  return ctx.page(
    request,
    reply,
    './settings',
    {
      title: 'Settings',
      money,
      skipped,
      notices: noticeSettings(user),
      maxBudget: MAX_BUDGET_CENTS,
      funding: fundingState(ctx),
      account: { email: user.email, verified: isEmailVerified(user) },
      email: '',
      ...extra,
      profile: extra.profile ?? user,
    },
    status,
  );
}

/**
 * How money enters balances on this site, for the money pages: `enabled` when `/funds` adds money
 * (PAYMENT_PROVIDER is not `none`), `simulated` when that money is simulated (the demo provider).
 */
export function fundingState(ctx: WebContext): { enabled: boolean; simulated: boolean } {
  const provider = websiteProvider(ctx.config.paymentProvider);
  return { enabled: provider !== undefined, simulated: provider?.simulated ?? false };
}

/** Registers GET/POST /settings, POST /settings/budget and GET /earnings on the website plugin. */
export function settingsRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;
  const h = makeHelpers(ctx.config.currency);
  const render = (
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    extra: { error?: string; notice?: string; profile?: Record<string, unknown> },
    status = 200,
  ) => renderSettings(ctx, request, reply, userId, extra, status);

  /**
   * GET /settings — the profile form, the budget form with balance, budget, this month's tips and
   * the subscriptions not renewed this month for lack of money, and the e-mail notices form.
   */
  app.get('/settings', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return render(request, reply, request.webSession.userId, { notice: noticeOf(request) });
  });

  /**
   * POST /settings — fields firstname, lastname, about, city, country, url, avatar, hide_tips
   * (checkbox), _csrf. Success: 303 to `/settings` with the one-time notice `profile`. Invalid input: 400 with the form
   * as sent and the reason; nothing is written (src/domain/users.ts updateProfile).
   */
  app.post('/settings', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/settings');
    const form = formOf(request);
    const input: Record<string, unknown> = { hideTips: field(form, 'hide_tips') !== '' ? 'true' : 'false' };
    for (const f of PROFILE_FIELDS) input[f] = field(form, f);
    try {
      await updateProfile(s, request.webSession.userId, parseProfile(input));
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') {
        return render(
          request,
          reply,
          request.webSession.userId,
          { error: err.message, profile: { ...input, hideTips: input.hideTips === 'true' } },
          400,
        );
      }
      throw err;
    }
    return redirectWithFlash(reply, '/settings', 'profile', ctx.secure);
  });

  /**
   * GET /earnings — what the user earned as an owner: this period's estimate (cents, tips, tippers:
   * src/domain/money/earnings.ts estimatePeriodEarnings); per settled period the cents credited to
   * their earnings account and the number of tips they pay for, oldest first, credits without a
   * period (held shares moved when an identity was verified) last, and an inline SVG chart of the
   * latest CHART_PERIODS settled periods (src/web/earnings-chart.ts); the supporters this period and
   * all time (tippers who hide their tips left out). Log-in required.
   */
  app.get('/earnings', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const userId = request.webSession.userId;
    const [money, estimate, supporters] = await Promise.all([
      getMoneySummary(s, userId),
      estimatePeriodEarnings(s, userId),
      getSupporters(s, userId),
    ]);
    const totalCents = money.earningsByPeriod.reduce((sum, e) => sum + e.cents, 0);
    const bars = money.earningsByPeriod.flatMap((e) =>
      e.period === null ? [] : [{ period: e.period, cents: e.cents }],
    );
    const chart = earningsChartSvg(bars, h.money, h.currency);
    return ctx.page(request, reply, './earnings', {
      title: 'Earnings',
      money,
      totalCents,
      estimate,
      supporters,
      chart,
      chartPeriods: CHART_PERIODS,
      funding: fundingState(ctx),
    });
  });

  /**
   * POST /settings/budget — fields `budget` (currency units, e.g. `5.00`: 0 to MAX_BUDGET_CENTS/100,
   * at most two decimals) or, when `budget` is absent, `budget_cents` (whole cents,
   * 0–MAX_BUDGET_CENTS); `_csrf`. Success: 303 to `/settings` with the one-time notice `budget`. Invalid: 400 with the
   * reason; nothing is written.
   */
  app.post('/settings/budget', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/settings');
    const form = formOf(request);
    try {
      const cents =
        form.budget === undefined && form.budget_cents !== undefined
          ? parseBudgetCents(field(form, 'budget_cents'))
          : parseBudgetUnits(field(form, 'budget'));
      await setMonthlyBudget(s, request.webSession.userId, cents);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation')
        return render(request, reply, request.webSession.userId, { error: err.message }, 400);
      throw err;
    }
    return redirectWithFlash(reply, '/settings', 'budget', ctx.secure);
  });
}
