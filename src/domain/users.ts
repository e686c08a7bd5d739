/**
 * Users: registration (CLI and website), funding through the payment-provider
 * interface, and the public and private views the API needs (api-v2.md "Users").
 */
import { inTransaction, isUniqueViolation } from '../db/transaction.ts';
import {
  findPasswordHash,
  findUserById,
  findUserByUsername,
  findUsersByIds,
  insertUser,
  updateBudget,
  updateProfile as updateProfileRow,
} from '../db/repositories/users.ts';
import { ensureAccount, postTransaction } from '../db/repositories/ledger.ts';
import { parseBoolean } from './input.ts';
import { parseHttpUrl } from './urls.ts';
import { DomainError, NotFoundError, ValidationError } from './errors.ts';
import type { Principal, UserRecord } from './records.ts';
import type { Services } from './services.ts';
import { MAX_BUDGET_CENTS } from './money/means.ts';
import { markVerifiedAtRegistration, queueVerification } from './verification.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{1,31}$/;
/** What an e-mail address must look like: `local@domain.tld`, without white space. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UsernameTakenError extends DomainError {
  constructor(username: string) {
    super('validation', `The username "${username}" is taken`, 'users');
  }
}

/** Length of a password in characters, as at sign-up (the upper bound bounds the hashing work). */
export const PASSWORD_LENGTH = { min: 8, max: 1024 } as const;

/**
 * Checks a new password's length (PASSWORD_LENGTH).
 * @throws ValidationError naming the rule it breaks
 */
export function checkNewPassword(password: string): void {
  if (password.length < PASSWORD_LENGTH.min)
    throw new ValidationError(`The password must have at least ${PASSWORD_LENGTH.min} characters.`, 'users');
  if (password.length > PASSWORD_LENGTH.max)
    throw new ValidationError(`The password must have at most ${PASSWORD_LENGTH.max} characters.`, 'users');
}

/**
 * Registers a user. A given address starts unverified, and its verification link is queued in the
 * same transaction (src/domain/verification.ts); with `verified` (operators: `tipjar users create
 * --verified`) the address is verified at once and no link is sent.
 * @param input username (2–32 of letters, digits, `_ -`, starting with a letter or digit),
 *   optional email and password (hashed with scrypt through `s.passwordHashing`), `verified`
 *   (needs an email).
 * @throws ValidationError for a bad username or email, or `verified` without an email;
 *   UsernameTakenError when taken; PasswordHashingBusyError when the server's hashing queue is
 *   full (nothing written).
 */
export async function registerUser(
  s: Services,
  input: { username: string; email?: string; password?: string; verified?: boolean },
): Promise<UserRecord> {
  if (!USERNAME_PATTERN.test(input.username)) {
    throw new ValidationError(
      'Invalid username: 2–32 letters, digits, "_" or "-", starting with a letter or digit',
      'users',
    );
  }
  const email = (input.email ?? '').trim();
  if (email && !EMAIL_PATTERN.test(email)) throw new ValidationError('Invalid email', 'users');
  if (input.verified && !email)
    throw new ValidationError('Only a given e-mail address can be marked verified', 'users');
  if (input.password !== undefined) checkNewPassword(input.password);
  const passwordHash = input.password !== undefined ? await s.passwordHashing.hash(input.password) : null;
  const now = s.clock.now();
  try {
    await inTransaction(s.database, async (trx) => {
      const id = await insertUser(trx, { username: input.username, email, passwordHash, registeredAt: now });
      await ensureAccount(trx, { kind: 'balance', userId: id }, now);
      await ensureAccount(trx, { kind: 'earnings', userId: id }, now);
      if (email && input.verified) await markVerifiedAtRegistration(trx, { userId: id, address: email, now });
      else if (email)
        await queueVerification(trx, {
          user: { id, username: input.username },
          address: email,
          now,
          siteUrl: s.siteUrl,
        });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new UsernameTakenError(input.username);
    throw err;
  }
  return (await findUserByUsername(s.database.db, input.username))!;
}

/**
 * Finds a live user by username (case-insensitive): a deleted account is not found.
 * @throws NotFoundError
 */
export async function getUser(s: Services, username: string): Promise<UserRecord> {
  const u = await findUserByUsername(s.database.db, username);
  if (!u || u.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  return u;
}

/** A user by id. @throws NotFoundError */
export async function getUserById(s: Services, id: number): Promise<UserRecord> {
  const u = await findUserById(s.database.db, id);
  if (!u) throw new NotFoundError('User not found', 'users');
  return u;
}

/** `GET /user`: the caller's own user. @throws NotFoundError (the token's user is gone) */
export async function getOwnUser(s: Services, principal: Principal): Promise<UserRecord> {
  return getUserById(s, principal.userId);
}

/** The users with these ids (unknown ids are left out), by id: e.g. owners for `full` renderings. */
export async function getUsersByIds(s: Services, ids: number[]): Promise<Map<number, UserRecord>> {
  return findUsersByIds(s.database.db, ids);
}

/**
 * The built-in payment provider (DECISIONS.md "Money": funds enter through a payment-provider
 * interface; the built-in provider is an operator command). Credits `cents` to the user's balance
 * from the platform's funding account as one ledger transaction, and optionally sets the monthly
 * budget. `reference` makes the funding idempotent (a repeated reference changes nothing);
 * `description` is the ledger transaction's (default "operator funding of <username>").
 * @throws NotFoundError for an unknown user, ValidationError for negative or non-integer amounts.
 */
export async function fundUser(
  s: Services,
  input: { username: string; cents: number; budgetCents?: number; reference?: string; description?: string },
): Promise<UserRecord> {
  if (!Number.isSafeInteger(input.cents) || input.cents < 0)
    throw new ValidationError('cents must be a whole number ≥ 0', 'users');
  if (
    input.budgetCents !== undefined &&
    (!Number.isSafeInteger(input.budgetCents) || input.budgetCents < 0 || input.budgetCents > MAX_BUDGET_CENTS)
  ) {
    throw new ValidationError(`budget must be a whole number of cents from 0 to ${MAX_BUDGET_CENTS}`, 'users');
  }
  const user = await getUser(s, input.username);
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    if (input.cents > 0) {
      await postTransaction(
        trx,
        {
          kind: 'funding',
          reference: input.reference ?? `funding:${user.id}:${now}:${Math.random().toString(36).slice(2)}`,
          description: input.description ?? `operator funding of ${user.username}`,
          now,
        },
        [
          { account: { kind: 'funding' }, amountCents: -input.cents },
          { account: { kind: 'balance', userId: user.id }, amountCents: input.cents },
        ],
      );
    }
    if (input.budgetCents !== undefined) await updateBudget(trx, user.id, input.budgetCents, now);
  });
  return getUser(s, input.username);
}

/** The profile fields a user edits on the website's settings page (the User resource's fields). */
export interface ProfileInput {
  firstname: string;
  lastname: string;
  about: string;
  city: string;
  country: string;
  /** the user's home page: empty, or an absolute http(s) URL */
  url: string;
  /** URL of the avatar image: empty, or an absolute http(s) URL */
  avatar: string;
  /** users.hide_tips: `GET /users/:u/tips` then answers [] to others (DECISIONS.md "Tips") */
  hideTips: boolean;
}

/** Longest value of each profile text field, in characters (docs/api.md "Users"). */
export const PROFILE_LIMITS = {
  firstname: 100,
  lastname: 100,
  about: 1000,
  city: 100,
  country: 100,
  url: 2048,
  avatar: 2048,
} as const;

/**
 * Validates profile input (website settings). Strings are trimmed; `about` may hold line
 * breaks, the others no control characters; `url` and `avatar` are empty or absolute http(s) URLs.
 * @returns the clean values.
 * @throws ValidationError naming the first bad field.
 */
export function parseProfile(raw: Record<string, unknown>): ProfileInput {
  const out: Record<string, string> = {};
  for (const [field, max] of Object.entries(PROFILE_LIMITS)) {
    const v = raw[field] ?? '';
    if (typeof v !== 'string') throw new ValidationError(`Invalid ${field}`, 'users');
    const value = v.trim();
    if ([...value].length > max) throw new ValidationError(`Invalid ${field}: at most ${max} characters`, 'users');
    const control = field === 'about' ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/ : /[\u0000-\u001f\u007f]/;
    if (control.test(value) || !value.isWellFormed())
      throw new ValidationError(`Invalid ${field}: control characters are not allowed`, 'users');
    if ((field === 'url' || field === 'avatar') && value !== '' && !parseHttpUrl(value)) {
      throw new ValidationError(`Invalid ${field}: an absolute http or https URL is required`, 'users');
    }
    out[field] = value;
  }
  const hide = raw.hideTips;
  return {
    ...(out as Omit<ProfileInput, 'hideTips'>),
    hideTips: hide === true || (typeof hide === 'string' && parseBoolean(hide) === true),
  };
}

/**
 * Saves a user's profile fields and the "hide my tips" setting (website settings).
 * @param p the parsed profile (parseProfile, at the edge).
 * @returns the updated user.
 * @throws NotFoundError for an unknown user.
 */
export async function updateProfile(s: Services, userId: number, p: ProfileInput): Promise<UserRecord> {
  if (!(await updateProfileRow(s.database.db, userId, p, s.clock.now())))
    throw new NotFoundError('User not found', 'users');
  return (await findUserById(s.database.db, userId))!;
}

/**
 * Checks a user's log-in: username (case-insensitive) and password against the scrypt hash.
 * An unknown user, or one without a password (created by the operator command), costs the same
 * scrypt work as a wrong password, so timing does not reveal which usernames exist.
 * @returns the user, or undefined when the username or password is wrong.
 * @throws PasswordHashingBusyError when the server's hashing queue is full (nothing was checked).
 */
export async function authenticateUser(
  s: Services,
  username: string,
  password: string,
): Promise<UserRecord | undefined> {
  const user =
    typeof username === 'string' && username.length <= 64
      ? await findUserByUsername(s.database.db, username)
      : undefined;
  const hash = user ? await findPasswordHash(s.database.db, user.id) : null;
  // A password longer than any we accept is wrong without being hashed (it bounds the work).
  const ok = password.length <= PASSWORD_LENGTH.max && (await s.passwordHashing.verify(password, hash));
  return user && hash && ok ? user : undefined;
}
