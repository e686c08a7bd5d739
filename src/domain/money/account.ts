/**
 * A user's money as the website shows it (the pages are the website's): the
 * monthly budget setting, a summary of balance, budget, this period's tips and earnings per period.
 */
import { earningsByPeriod } from '../../db/repositories/ledger.ts';
import { findMeans, updateBudget } from '../../db/repositories/users.ts';
import { countTipsInPeriod } from '../../db/repositories/tips.ts';
import { listRenewalsWithOutcome } from '../../db/repositories/subscriptions.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import type { Cents } from '../records.ts';
import { periodOf } from '../periods.ts';
import type { Services } from '../services.ts';
import { hasMeans, MAX_BUDGET_CENTS, periodBudget } from './means.ts';

/**
 * Sets a user's monthly budget. The budget may exceed the balance (the user then has no means
 * until funded). A period's budget is fixed at the user's first tip in it (DECISIONS.md "Money"):
 * once the user has tipped this period, the change applies from the next one.
 * @param cents whole cents, 0 ≤ cents ≤ MAX_BUDGET_CENTS (see parseBudgetCents).
 * @returns the new budget in cents.
 * @throws NotFoundError for an unknown user.
 */
export async function setMonthlyBudget(s: Services, userId: number, cents: Cents): Promise<Cents> {
  if (!(await updateBudget(s.database.db, userId, cents, s.clock.now())))
    throw new NotFoundError('User not found', 'users');
  return cents;
}

/**
 * A monthly budget as sent (a number, or a string of digits with surrounding white space): whole
 * cents, 0 ≤ cents ≤ MAX_BUDGET_CENTS.
 * @throws ValidationError for anything else.
 */
export function parseBudgetCents(raw: unknown): Cents {
  const value = typeof raw === 'string' && /^\s*\d{1,15}\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_BUDGET_CENTS) {
    throw new ValidationError(
      `The monthly budget must be a whole number of cents from 0 to ${MAX_BUDGET_CENTS}`,
      'users',
    );
  }
  return value;
}

/** A user's budget as `GET /user` (scope `extendedread`) reports it, in cents. */
export interface BudgetView {
  /** the monthly budget setting */
  budgetCents: number;
  /** the budget of the current period: fixed at the user's first tip in it, else the setting */
  periodBudgetCents: number;
}

/**
 * The monthly budget setting and the budget that applies to the current period (DECISIONS.md
 * "Money": fixed at the first tip of the period; a later change applies from the next one).
 * @throws NotFoundError for an unknown user.
 */
export async function getBudget(s: Services, userId: number): Promise<BudgetView> {
  const means = await findMeans(s.database.db, userId, periodOf(s.clock.now()));
  if (!means) throw new NotFoundError('User not found', 'users');
  return { budgetCents: means.budgetCents, periodBudgetCents: periodBudget(means) };
}

export interface EarningsInPeriod {
  /** 'YYYY-MM', or null for credits without a period (e.g. claimed held shares) */
  period: string | null;
  /** cents credited to the user's earnings */
  cents: number;
  /** tips paid for */
  tips: number;
}

export interface MoneySummary {
  balanceCents: number;
  /** the monthly budget setting */
  budgetCents: number;
  /** the budget of the current period, fixed at the user's first tip in it; null before that tip */
  periodBudgetCents: number | null;
  /** DECISIONS.md "Money": the period's budget (else the setting) > 0 and balance ≥ it */
  hasMeans: boolean;
  /** the current period, 'YYYY-MM' (by the injected clock) */
  period: string;
  /** tips the user gave in the current period */
  periodTipCount: number;
  /** settled earnings per period, oldest first (periods without a period last) */
  earningsByPeriod: EarningsInPeriod[];
  /** things whose subscription renewal was skipped this period because the user lacked means */
  renewalsSkippedForMeans: number[];
}

/** Earnings of a user per period, oldest first, credits without a period last. */
export async function getEarningsByPeriod(s: Services, userId: number): Promise<EarningsInPeriod[]> {
  const rows = await earningsByPeriod(s.database.db, userId);
  return rows.sort((a, b) =>
    a.period === b.period ? 0 : a.period === null ? 1 : b.period === null ? -1 : a.period < b.period ? -1 : 1,
  );
}

/**
 * What the website's settings and earnings pages show for a user.
 * @throws NotFoundError for an unknown user.
 */
export async function getMoneySummary(s: Services, userId: number): Promise<MoneySummary> {
  const period = periodOf(s.clock.now());
  const means = await findMeans(s.database.db, userId, period);
  if (!means) throw new NotFoundError('User not found', 'users');
  const [count, earnings, skipped] = await Promise.all([
    countTipsInPeriod(s.database.db, userId, period),
    getEarningsByPeriod(s, userId),
    listRenewalsWithOutcome(s.database.db, userId, period, 'no_means'),
  ]);
  return {
    balanceCents: means.balanceCents,
    budgetCents: means.budgetCents,
    periodBudgetCents: means.periodBudgetCents,
    hasMeans: hasMeans(means),
    period,
    periodTipCount: count,
    earningsByPeriod: earnings,
    renewalsSkippedForMeans: skipped,
  };
}
