/**
 * The user's settings: profile fields of the User resource, "hide my tips", and the
 * monthly budget in cents (src/domain/money/account.ts setMonthlyBudget). Log-in required.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { getMoneySummary, parseBudgetCents, setMonthlyBudget } from '../../domain/money/account.ts';
import { MAX_BUDGET_CENTS } from '../../domain/money/means.ts';
import { getUserById, parseProfile, updateProfile } from '../../domain/users.ts';
import { renewalsSkippedForMeans } from '../../domain/subscriptions.ts';
import { noticeSettings } from './notices.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';

const PROFILE_FIELDS = ['firstname', 'lastname', 'about', 'city', 'country', 'url', 'avatar'] as const;

/** Registers GET/POST /settings, POST /settings/budget and GET /earnings on the website plugin. */
export function settingsRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    extra: { error?: string; notice?: string; profile?: Record<string, unknown> },
    status = 200,
  ) {
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
        ...extra,
        profile: extra.profile ?? user,
      },
      status,
    );
  }

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
   * (checkbox), _csrf. Success: 303 to `/settings?done=profile`. Invalid input: 400 with the form
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
    return reply.code(303).redirect('/settings?done=profile');
  });

  /**
   * GET /earnings — what the user earned as an owner, per settled period: the
   * cents credited to their earnings account and the number of tips they pay for, oldest first;
   * credits without a period (held shares moved when an identity was verified) last. Log-in required.
   */
  app.get('/earnings', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const money = await getMoneySummary(s, request.webSession.userId);
    const totalCents = money.earningsByPeriod.reduce((sum, e) => sum + e.cents, 0);
    return ctx.page(request, reply, './earnings', { title: 'Earnings', money, totalCents });
  });

  /**
   * POST /settings/budget — fields budget_cents (whole cents, 0–MAX_BUDGET_CENTS), _csrf.
   * Success: 303 to `/settings?done=budget`. Invalid: 400 with the reason; nothing is written.
   */
  app.post('/settings/budget', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/settings');
    try {
      const cents = parseBudgetCents(field(formOf(request), 'budget_cents'));
      await setMonthlyBudget(s, request.webSession.userId, cents);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation')
        return render(request, reply, request.webSession.userId, { error: err.message }, 400);
      throw err;
    }
    return reply.code(303).redirect('/settings?done=budget');
  });
}
