/**
 * Means (DECISIONS.md "Money"): the budget that applies to a period and whether a user can tip in
 * it. Pure functions over the repository's `Means` (cents), shared by tipping, settlement and the
 * account pages.
 */
import type { Means } from '../../db/repositories/users.ts';

export type { Means };

/** The highest monthly budget a user may set: 1,000,000 cents (10,000.00 in the currency). */
export const MAX_BUDGET_CENTS = 1_000_000;

/**
 * The budget that applies to a period, in cents: the one fixed at the user's first tip in it, else
 * (no tip yet) the monthly budget setting.
 */
export function periodBudget(m: Means): number {
  return m.periodBudgetCents ?? m.budgetCents;
}

/** A user has means in a period when its budget (periodBudget) > 0 and the balance ≥ that budget. */
export function hasMeans(m: Means): boolean {
  const budget = periodBudget(m);
  return budget > 0 && m.balanceCents >= budget;
}
