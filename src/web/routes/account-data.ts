/**
 * The user's own data on the website (src/domain/account-data.ts): Settings → "Download my data"
 * (a JSON document of everything held about the account) and "Delete my account" (a confirmation
 * page, then the deletion; works without JavaScript). Log-in required.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PasswordHashingBusyError } from '../../auth/passwords.ts';
import { deleteAccount, exportUserData, previewDeletion } from '../../domain/account-data.ts';
import { authenticateUser } from '../../domain/users.ts';
import { clientNetwork } from '../../ratelimit/limiter.ts';
import { minutesText, type WebContext } from '../context.ts';
import { usernameKey } from '../limits.ts';
import { endSession } from '../sessions.ts';
import { field, formOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** Registers GET /settings/export and GET/POST /settings/delete on the website plugin. */
export function accountDataRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /**
   * GET /settings/export — the logged-in user's data (exportUserData: format, version,
   * generated_at, profile, identities, things, tips_given, tips_received, subscriptions, ledger,
   * authorized_applications, applications) as `application/json; charset=utf-8`, a download
   * (`Content-Disposition: attachment; filename="tipjar-<username>.json"`), `Cache-Control:
   * no-store`. Logged out: to the log-in page and back.
   */
  app.get('/settings/export', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const doc = await exportUserData(s, request.webSession.userId);
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="tipjar-${doc.profile.username}.json"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(`${JSON.stringify(doc, null, 2)}\n`);
  });

  async function confirmation(request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) {
    const preview = await previewDeletion(s, request.webSession!.userId);
    return ctx.page(request, reply, './delete-account', { title: 'Delete my account', preview, error }, status);
  }

  /**
   * GET /settings/delete — the confirmation page: what goes (profile, things, subscriptions,
   * sessions, tokens, applications, verified identities, the money left, forfeited), what stays
   * (the username, never given out again; tips; the ledger's records), and the form (password,
   * confirm checkbox, _csrf). Logged out: to the log-in page and back.
   */
  app.get('/settings/delete', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return confirmation(request, reply);
  });

  /**
   * POST /settings/delete — fields password, confirm (checkbox, must be sent), _csrf.
   * Success: the account is deleted (deleteAccount), the session cookie cleared, 303 to
   * `/` with the one-time notice `deleted` (the home page then says the account was deleted).
   * Refusals show the confirmation page again with the reason, nothing changed: without `confirm`
   * 400; a wrong password 403; over RATE_LIMIT_PASSWORD_FORMS submissions from the client IP in
   * the hour, or over the failed log-in limits of the account (the same counts as log-in), 429
   * with `Retry-After`; the hashing queue full, 503 with `Retry-After`.
   */
  app.post('/settings/delete', async (request, reply) => {
    const session = request.webSession;
    if (!session) return toLogin(request, reply, '/settings/delete');
    const form = formOf(request);
    const password = field(form, 'password');
    const refuse = (wait: number, what: string) => {
      reply.header('retry-after', String(wait));
      return confirmation(request, reply, `${what} Please try again in ${minutesText(wait)}.`, 429);
    };
    const forms = await ctx.limits.passwordForms.hit(clientNetwork(request.ip));
    if (forms.exceeded) return refuse(forms.retryAfter, 'Too many forms were sent from your network in the last hour.');
    if (field(form, 'confirm') === '')
      return confirmation(request, reply, 'Please tick the box to confirm that the account is to be deleted.', 400);
    const account = usernameKey(session.username);
    const wait = await ctx.limits.logins.attempt(account, request.ip);
    if (wait > 0) return refuse(wait, 'Too many wrong passwords. For your safety, this is paused.');
    let user;
    try {
      user = await authenticateUser(s, session.username, password);
    } catch (err) {
      await ctx.limits.logins.undecided(account, request.ip);
      if (err instanceof PasswordHashingBusyError) {
        reply.header('retry-after', String(err.retryAfter));
        return confirmation(
          request,
          reply,
          `The server is busy checking other passwords. Please send the form again in ${err.retryAfter} second${err.retryAfter === 1 ? '' : 's'}.`,
          503,
        );
      }
      throw err;
    }
    if (!user || user.id !== session.userId)
      return confirmation(request, reply, 'Wrong password: your account was not deleted.', 403);
    await ctx.limits.logins.succeeded(account, request.ip);
    await deleteAccount(s, session.userId);
    await endSession(s, request, reply, ctx.secure);
    return redirectWithFlash(reply, '/', 'deleted', ctx.secure);
  });
}
