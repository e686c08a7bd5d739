/** Criteria of searches for the search module's own tests (no app, no database). */
import type { SearchCriteria } from '../../src/db/repositories/search.ts';

/** The criteria of a search for `word` by relevance, the first page of 30, made at Unix second 1,000. */
export const wordCriteria = (word: string): SearchCriteria => ({
  words: [word],
  sort: 'relevance',
  now: 1_000,
  page: 1,
  count: 30,
});
