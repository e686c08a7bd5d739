/** What every domain service needs: the database, the clock and the site's origin. */
import type { Database } from '../db/connect.ts';
import type { Clock } from './clock.ts';
import type { Discovery } from '../discovery/index.ts';
import type { SearchCache } from './search-cache.ts';
import type { PasswordHashing } from '../auth/passwords.ts';

export interface Services {
  database: Database;
  clock: Clock;
  /** Origin of the website, e.g. `http://localhost:3000` (auto-submit URLs live there). */
  siteUrl: string;
  /** Finds the auto-submit URL an unregistered page links (DECISIONS.md "Discovery"); absent: off. */
  discovery?: Discovery;
  /** Keeps search results while nothing they depend on changed (SEARCH_CACHE_SECONDS); absent: every search runs. */
  searchCache?: SearchCache;
  /** Hashes and checks passwords (the server's bounded PasswordHasher); absent: unbounded (operator commands). */
  passwordHashing?: PasswordHashing;
}
