/** OAuth scopes (api-v2.md "Authentication" 7). */
export const SCOPES = ['tip', 'thing', 'extendedread'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** Splits a scope string on spaces and/or commas, dropping empties and duplicates. */
export function parseScopes(raw: string): string[] {
  return [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
}
