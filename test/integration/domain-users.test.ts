/**
 * The users service (src/domain/users.ts) called directly, without HTTP, on every engine:
 * registration and log-in through the PasswordHashing port the domain receives in Services
 * (docs/adr/0019), funding, budgets and profiles, and the look-ups the routes use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, ENGINES } from '../helpers/db.ts';
import { fixedClock } from '../helpers/app.ts';
import { principalOf, uniqueName } from '../helpers/factories.ts';
import {
  authenticateUser,
  fundUser,
  getOwnUser,
  getUser,
  getUserById,
  getUsersByIds,
  parseProfile,
  registerUser,
  updateProfile,
  UsernameTakenError,
} from '../../src/domain/users.ts';
import { getBudget } from '../../src/domain/money/account.ts';
import { NotFoundError, ValidationError } from '../../src/domain/errors.ts';
import type { PasswordHashing, Services } from '../../src/domain/services.ts';

const T0 = Date.UTC(2026, 4, 5, 8) / 1000;

/** A password port that records its calls: stored form `hashed:<password>`. */
function recordingHashing() {
  const calls: { op: 'hash' | 'verify'; password: string; stored?: string | null }[] = [];
  const port: PasswordHashing = {
    async hash(password) {
      calls.push({ op: 'hash', password });
      return `hashed:${password}`;
    },
    async verify(password, stored) {
      calls.push({ op: 'verify', password, stored });
      return stored === `hashed:${password}`;
    },
  };
  return { port, calls };
}

describe.each(ENGINES)('the users service on %s', (engine) => {
  const clock = fixedClock(T0);
  const hashing = recordingHashing();
  let s: Services;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ s, drop } = await createTestServices(engine, { clock, passwordHashing: hashing.port }));
  });
  afterAll(async () => drop());

  it('registers through the password port and logs in through it; an unknown user is checked against a null hash, at the same cost', async () => {
    const username = uniqueName('pw');
    const user = await registerUser(s, { username, email: `${username}@example.com`, password: 'correct horse' });
    expect(user).toMatchObject({ username, registeredAt: T0, balanceCents: 0, budgetCents: 0, hideTips: false });
    expect(hashing.calls.at(-1)).toEqual({ op: 'hash', password: 'correct horse' });

    expect((await authenticateUser(s, username.toUpperCase(), 'correct horse'))?.id).toBe(user.id);
    expect(hashing.calls.at(-1)).toEqual({ op: 'verify', password: 'correct horse', stored: 'hashed:correct horse' });
    expect(await authenticateUser(s, username, 'wrong')).toBeUndefined();

    const before = hashing.calls.length;
    expect(await authenticateUser(s, uniqueName('nobody'), 'correct horse')).toBeUndefined();
    expect(hashing.calls.slice(before)).toEqual([{ op: 'verify', password: 'correct horse', stored: null }]);

    const noPassword = await registerUser(s, { username: uniqueName('nopw') });
    const n = hashing.calls.length;
    expect(await authenticateUser(s, noPassword.username, '')).toBeUndefined();
    expect(hashing.calls.slice(n)).toEqual([{ op: 'verify', password: '', stored: null }]);
  });

  it('refuses a bad username, email or password with ValidationError and a taken name with UsernameTakenError, writing nothing', async () => {
    const hashed = hashing.calls.length;
    await expect(registerUser(s, { username: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(registerUser(s, { username: uniqueName(), email: 'not-an-address' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(registerUser(s, { username: uniqueName(), password: 'short' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(hashing.calls.length).toBe(hashed);
    const taken = uniqueName('taken');
    await registerUser(s, { username: taken });
    await expect(registerUser(s, { username: taken.toUpperCase() })).rejects.toBeInstanceOf(UsernameTakenError);
    await expect(getUser(s, 'x')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('fundUser credits the balance once per reference and sets the budget; bad amounts are ValidationError', async () => {
    const { username, id } = await registerUser(s, { username: uniqueName('fund') });
    expect(await fundUser(s, { username, cents: 700, budgetCents: 300, reference: 'pay-1' })).toMatchObject({
      balanceCents: 700,
      budgetCents: 300,
    });
    expect((await fundUser(s, { username, cents: 700, reference: 'pay-1' })).balanceCents).toBe(700);
    expect((await fundUser(s, { username, cents: 50, reference: 'pay-2' })).balanceCents).toBe(750);
    await expect(fundUser(s, { username, cents: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(fundUser(s, { username, cents: 1, budgetCents: 1.5 })).rejects.toBeInstanceOf(ValidationError);
    await expect(fundUser(s, { username: uniqueName('ghost'), cents: 1 })).rejects.toBeInstanceOf(NotFoundError);
    expect(await getBudget(s, id)).toEqual({ budgetCents: 300, periodBudgetCents: 300 });
  });

  it('updateProfile saves valid fields and refuses bad ones with ValidationError, changing nothing', async () => {
    const user = await registerUser(s, { username: uniqueName('profile') });
    const saved = await updateProfile(
      s,
      user.id,
      parseProfile({ city: ' Lyon ', url: 'https://example.com/me', hideTips: 'true' }),
    );
    expect(saved).toMatchObject({ city: 'Lyon', url: 'https://example.com/me', hideTips: true });
    expect(() => parseProfile({ city: 'Paris', url: 'javascript:alert(1)' })).toThrow(ValidationError);
    expect(await getUserById(s, user.id)).toMatchObject({ city: 'Lyon', hideTips: true });
    await expect(updateProfile(s, 999_999_999, parseProfile({}))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('getOwnUser, getUserById and getUsersByIds read users by id; unknown ids are NotFoundError or left out', async () => {
    const a = await registerUser(s, { username: uniqueName('a') });
    const b = await registerUser(s, { username: uniqueName('b') });
    expect((await getOwnUser(s, principalOf(a))).username).toBe(a.username);
    await expect(getUserById(s, 999_999_999)).rejects.toBeInstanceOf(NotFoundError);
    const byId = await getUsersByIds(s, [b.id, a.id, b.id, 999_999_999]);
    expect([...byId.keys()].sort((x, y) => x - y)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(byId.get(b.id)?.username).toBe(b.username);
  });
});
