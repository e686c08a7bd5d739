/** Reading website form fields (application/x-www-form-urlencoded bodies and query strings). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { flashOf } from '../flash.ts';

/** The request body as a plain object (form fields), or {} for anything else. */
export function formOf(request: FastifyRequest): Record<string, unknown> {
  const b = request.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** A text field: its first value when repeated, '' when absent or not text. */
export function field(source: Record<string, unknown>, name: string): string {
  const v = source[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : '';
}

/** Confirmation notices after a redirect (src/web/flash.ts): fixed texts, never the visitor's input. */
const NOTICES: Record<string, string> = {
  welcome: 'Welcome to Tipjar! Your account is ready.',
  profile: 'Your profile was saved.',
  budget: 'Your monthly budget was saved.',
  tipped: 'Thank you — you tipped this thing.',
  deleted: 'The application was deleted and its tokens revoked.',
  'redirect-uris': 'The redirect URIs were saved.',
  revoked: 'Access revoked: the application can no longer act for you.',
  loggedout: 'You are logged out.',
  password: 'Your password was changed. Every other session of your account was logged out.',
  email:
    'Your e-mail address was changed. We sent a link to the new address: follow it to confirm the address. Your old address was told of the change.',
  'reset-sent':
    'If an account has this address, we sent it a link to choose a new password. The link works once, for one hour. No mail after a few minutes? Check the address and your spam folder, then try again.',
  'verify-sent': 'A new verification link is on its way to your e-mail address. It works once, for 24 hours.',
  'verify-done': 'Your e-mail address is verified already.',
  'verify-none': 'Your account has no e-mail address to verify.',
  notices: 'Your e-mail notices were saved.',
  funded: 'The money was added to your balance.',
  'funded-budget': 'The money was added to your balance and your monthly budget was saved.',
  'thing-deleted': 'The thing was deleted.',
  'thing-created': 'Your thing was added. People can tip it now.',
  'thing-saved': 'Your changes were saved.',
  'thing-hidden': 'The thing is hidden: only you see it in lists, search and feeds.',
  'thing-shown': 'The thing is shown again.',
  subscribed:
    'You subscribed to this thing and tipped it for this month. It is tipped again at the start of every month.',
  'subscribed-tipped':
    'You subscribed to this thing. You had tipped it this month already; it is tipped again at the start of every month.',
  'subscribed-no-means':
    'You subscribed to this thing, but you have no means to tip yet, so it was not tipped this month: set a monthly budget in Settings and make sure your balance covers it. Each month the subscription tries again.',
  paused: 'Your subscription is paused: the thing is not tipped at the start of the month until you resume it.',
  resumed: 'Your subscription is active again: the thing is tipped at the start of every month.',
  unsubscribed: 'You unsubscribed from this thing.',
};

/**
 * The notice named by the `done` query parameter (older links), else by the one-time flash cookie
 * a form's 303 set (src/web/flash.ts; the page that renders clears it), if it is one of ours;
 * `own` gives a page's own texts, which take precedence (e.g. the home page's `deleted`: the
 * account was deleted).
 */
export function noticeOf(request: FastifyRequest, own: Record<string, string> = {}): string | undefined {
  const done = field(request.query as Record<string, unknown>, 'done') || flashOf(request);
  if (Object.hasOwn(own, done)) return own[done];
  return Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
}

/**
 * Sends a visitor who is not logged in to the log-in page, to come back to this page afterwards.
 * Pages behind log-in call it first: `if (!request.webSession) return toLogin(request, reply)`.
 */
export function toLogin(request: FastifyRequest, reply: FastifyReply, returnTo = request.url): FastifyReply {
  const target = returnTo === '/' ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`;
  return reply
    .code(request.method === 'GET' ? 302 : 303)
    .header('cache-control', 'no-store')
    .redirect(target);
}
