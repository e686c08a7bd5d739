/**
 * What every domain service needs: the database, the clock, the site's origin, and the ports
 * through which the domain reaches what is not its business (password hashing, discovery), each
 * implemented outside domain/ and handed in by whoever builds the services (app.ts, the CLI).
 */
import type { Database } from '../db/transaction.ts';
import type { Clock } from './clock.ts';
import type { Search } from './search/index.ts';

/**
 * Hashes and checks passwords (implemented by src/auth/passwords.ts: scrypt, through the server's
 * bounded queue or unbounded for operator commands).
 */
export interface PasswordHashing {
  /** The stored form of `password` (salted, self-describing). @throws when the implementation is too busy */
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `stored`. A null `stored` (an unknown user, or one without a
   * password) costs the same work as a wrong password and is false, so timing tells nothing.
   * @throws when the implementation is too busy
   */
  verify(password: string, stored: string | null): Promise<boolean>;
}

/**
 * Finds the auto-submit URL an unregistered page links (DECISIONS.md "Discovery"; implemented by
 * src/discovery: a guarded fetch and an HTML/feed parser).
 */
export interface Discovery {
  /**
   * The auto-submit URL (absolute) that the page or feed at `url` links with `rel="payment"`, or
   * null when there is none or the URL cannot be fetched (refused, timeout, error status, too large).
   */
  discover(url: string): Promise<string | null>;
}

export interface Services {
  database: Database;
  clock: Clock;
  /** Origin of the website, e.g. `http://localhost:3000` (auto-submit URLs live there). */
  siteUrl: string;
  /** Hashes and checks passwords: the server's bounded queue, or unbounded for operator commands. */
  passwordHashing: PasswordHashing;
  /** Finds the auto-submit URL an unregistered page links (DECISIONS.md "Discovery"); absent: off. */
  discovery?: Discovery;
  /** The search module with its caches (src/domain/search): the server's; absent in commands, which never search. */
  search?: Search;
}
