/**
 * The website's limits (docs/api.md "Website" → "Limits"), counted in the process's
 * CounterStore (memory, or Redis when `REDIS_URL` is set, shared by every instance), in fixed
 * windows on the injected clock; client IPs are counted by network (IPv6: per /64):
 * - every website request but the stylesheet, per client IP per hour (RATE_LIMIT_PAGES);
 * - log-in and sign-up form submissions, and requests for a new verification link, per client IP
 *   per hour (RATE_LIMIT_PASSWORD_FORMS);
 * - verification links sent on request, per account per hour (VERIFICATION_MAILS_PER_HOUR);
 * - accounts created through the sign-up form, per client IP per hour (RATE_LIMIT_SIGNUPS);
 * - failed log-ins (failures.ts): per (username, client IP) per 15 minutes
 *   (LOGIN_FAILURES_PER_USER_AND_IP), and per username from all IPs per hour
 *   (LOGIN_FAILURES_PER_USER); wrong current passwords on the settings' credential forms count too;
 * - password-reset requests per address per hour (PASSWORD_RESETS_PER_ADDRESS), counted alike for
 *   addresses no account has;
 * - submissions of the settings' credential forms (password, address) per account per hour
 *   (ACCOUNT_FORMS_PER_USER).
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import { FailureLimits } from '../ratelimit/failures.ts';
import { FixedWindowLimit } from '../ratelimit/fixed-window.ts';
import type { CounterStore } from '../ratelimit/store.ts';

/** The window of the (username, IP) log-in failures: 15 minutes, in seconds. */
export const LOGIN_PAIR_WINDOW_SECONDS = 15 * 60;
/** The window of every other website limit: one hour, in seconds. */
export const HOUR_SECONDS = 3600;
/** Password-reset requests per address (whether or not an account has it) per hour. */
export const PASSWORD_RESETS_PER_ADDRESS = 5;
/** Submissions of the settings' password and address forms per account per hour. */
export const ACCOUNT_FORMS_PER_USER = 10;
/** Verification links a user may have sent again per hour (`POST /verify-email/resend`). */
export const VERIFICATION_MAILS_PER_HOUR = 5;

export interface WebLimits {
  /** website requests per client network (key: the network) */
  pages: FixedWindowLimit;
  /** log-in and sign-up submissions per client network */
  passwordForms: FixedWindowLimit;
  /** accounts created per client network */
  signups: FixedWindowLimit;
  /** verification links sent on request; the key is the user id */
  verificationMails: FixedWindowLimit;
  /** failed log-ins; the account is the lower-cased username */
  logins: FailureLimits;
  /** password-reset requests per address (key: addressKey) */
  passwordResets: FixedWindowLimit;
  /** settings' credential forms per account (key: the user id) */
  accountForms: FixedWindowLimit;
}

/** The limits from the settings, over `store`. */
export function createWebLimits(store: CounterStore, config: Config, clock: Clock): WebLimits {
  const hourly = (name: string, limit: number) =>
    new FixedWindowLimit(store, { name, limit, windowSeconds: HOUR_SECONDS, clock });
  return {
    pages: hourly('pages', config.rateLimitPages),
    passwordForms: hourly('password-forms', config.rateLimitPasswordForms),
    signups: hourly('signups', config.rateLimitSignups),
    verificationMails: hourly('verification-mails', VERIFICATION_MAILS_PER_HOUR),
    logins: new FailureLimits([
      {
        limit: new FixedWindowLimit(store, {
          name: 'login-failures',
          limit: config.loginFailuresPerUserAndIp,
          windowSeconds: LOGIN_PAIR_WINDOW_SECONDS,
          clock,
        }),
        key: (username, network) => `${network}:${username}`,
      },
      { limit: hourly('login-failures-user', config.loginFailuresPerUser), key: (username) => username },
    ]),
    passwordResets: hourly('password-resets', PASSWORD_RESETS_PER_ADDRESS),
    accountForms: hourly('account-forms', ACCOUNT_FORMS_PER_USER),
  };
}

/** The account key of a username: lower-cased (usernames are case-insensitive), at most 64 characters. */
export function usernameKey(username: string): string {
  return username.slice(0, 64).toLowerCase();
}

/**
 * The key of an e-mail address in the password-reset limit: the SHA-256 of the trimmed, lower-cased
 * address (fixed length; no address is kept in the counter store).
 */
export function addressKey(address: string): string {
  return createHash('sha256').update(address.trim().toLowerCase()).digest('hex');
}
