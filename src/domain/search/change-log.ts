/**
 * What the search caches know of the database's writes (docs/adr/0015, 0019): the changes this
 * process's transactions announce after they commit (db/transaction.ts onCommit), kept as
 * - two epochs: `things`, moved by every committed write that can change what a search matches
 *   (a new, changed, hidden, deleted or handed-over thing), and `tips`, moved by every committed
 *   tip (the tip sorts depend on tips);
 * - a version per thing row, moved by every committed write of the row (its counters included),
 *   hashed into a fixed table of slots so memory stays constant (two things sharing a slot only
 *   make a rendered answer be made again more often);
 * - on SQLite, `PRAGMA data_version` (Database.externalChanges): it moves when another connection
 *   — another process, such as `tipjar import things` beside the server — has committed;
 * - on PostgreSQL, the database's counter of writes that can change what a search matches, moved
 *   by every instance's writes (`shared`, migration 0012_search_changes).
 * A value read before a read of the database is never newer than what that read saw: the epochs
 * and versions move after the commit, before its caller is answered.
 */
import { onCommit, type Change, type Database } from '../../db/transaction.ts';
import { readSearchChanges } from '../../db/repositories/search.ts';

/** The epochs (see the file comment). */
export interface Epochs {
  things: number;
  tips: number;
}

/** Slots of the thing-version table (a power of two). */
const VERSION_SLOTS = 1 << 16;

export class ChangeLog {
  private readonly epochs: Epochs = { things: 0, tips: 0 };
  private readonly versions = new Uint32Array(VERSION_SLOTS);
  private readonly stop: () => void;

  /** Starts following the commits on `database`; `close()` stops. */
  constructor(private readonly database: Database) {
    this.stop = onCommit(database, (changes) => this.apply(changes));
  }

  /** Whether every change to the database is seen here (SQLite: this process's commits and data_version). */
  get seesEveryChange(): boolean {
    return this.database.externalChanges !== undefined;
  }

  /** The epochs now (a copy). */
  current(): Epochs {
    return { things: this.epochs.things, tips: this.epochs.tips };
  }

  /** SQLite: `PRAGMA data_version` now (moves when another connection committed); undefined elsewhere. */
  external(): number | undefined {
    return this.database.externalChanges?.();
  }

  /**
   * PostgreSQL: the database's own counter of committed writes that can change what a search
   * matches, by any instance (migration 0012_search_changes), read now; undefined on SQLite, or
   * when it cannot be read.
   */
  async shared(): Promise<number | undefined> {
    if (this.seesEveryChange) return undefined;
    try {
      return await readSearchChanges(this.database);
    } catch {
      return undefined;
    }
  }

  /** The version of a thing's row: it moves whenever a write of the row commits. */
  thingVersion(thingId: number): number {
    return this.versions[thingId & (VERSION_SLOTS - 1)]!;
  }

  /** Stops following the database's commits. */
  close(): void {
    this.stop();
  }

  private apply(changes: readonly Change[]): void {
    let matching = false;
    let tipped = false;
    for (const c of changes) {
      if (c.kind === 'tip') tipped = true;
      else if (c.kind === 'things') {
        if (c.matching) matching = true;
        for (const id of c.ids) {
          const slot = id & (VERSION_SLOTS - 1);
          this.versions[slot] = this.versions[slot]! + 1;
        }
      }
    }
    if (matching) this.epochs.things++;
    if (tipped) this.epochs.tips++;
  }
}
