/**
 * The thing cache (docs/adr/0015): thing records by id for the reads outside transactions —
 * `GET /things/:id`, `GET /things/:id,:id`, the things of a search page. A search page reads 30
 * things; from the database that is ≈ 200 µs of the server's one thread, from here a few.
 *
 * Exact, so only where every change can be seen: on SQLite (one server process per file). A write
 * through this process tells db/changes.ts which things it changed; their entries go at once and
 * again when the transaction settles (a read during an open transaction may have seen rows that
 * are then rolled back). A read that overlapped any write is not kept. A commit by another process
 * (`Database.externalChanges`, e.g. `tipjar import things`) empties the cache. Writes inside
 * transactions read the database, never this cache.
 */
import { LRUCache } from 'lru-cache';
import { onThingsChanged } from './changes.ts';
import type { Database } from './connect.ts';
import { findThingById, findThingsByIds } from './repositories/things.ts';
import type { ThingRecord } from '../domain/records.ts';

export class ThingCache {
  private readonly entries: LRUCache<number, ThingRecord>;
  /** moves with every change told (a read that overlapped one is not kept) */
  private changes = 0;
  private external: number;
  private readonly stopListening: () => void;

  /**
   * @param database a SQLite database (it must have `externalChanges`)
   * @param maxEntries most things kept (least recently used go first)
   * @throws Error for a database whose changes by others cannot be seen (PostgreSQL)
   */
  constructor(
    private readonly database: Database,
    maxEntries: number,
  ) {
    if (!database.externalChanges) throw new Error('the thing cache needs a database whose external changes can be seen (SQLite)');
    this.external = database.externalChanges();
    this.entries = new LRUCache<number, ThingRecord>({ max: Math.max(1, maxEntries) });
    this.stopListening = onThingsChanged((ids) => {
      this.changes++;
      for (const id of ids) this.entries.delete(id);
    });
  }

  /** The live thing with this id, or undefined (deleted or unknown). Like findThingById. */
  async findById(id: number): Promise<ThingRecord | undefined> {
    this.checkExternal();
    const cached = this.entries.get(id);
    if (cached) return cached;
    const before = this.changes;
    const t = await findThingById(this.database.db, id);
    if (t && this.changes === before && this.checkExternal()) this.entries.set(id, t);
    return t;
  }

  /** The live things among `ids`, in no particular order. Like findThingsByIds. */
  async findByIds(ids: readonly number[]): Promise<ThingRecord[]> {
    this.checkExternal();
    const found: ThingRecord[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const cached = this.entries.get(id);
      if (cached) found.push(cached);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const before = this.changes;
    const read = await findThingsByIds(this.database.db, missing);
    const keep = this.changes === before && this.checkExternal();
    for (const t of read) {
      if (keep) this.entries.set(t.id, t);
      found.push(t);
    }
    return found;
  }

  /** Stops following the changes (when the app closes). */
  close(): void {
    this.stopListening();
    this.entries.clear();
  }

  /** Empties the cache when another connection committed since the last look; false then. */
  private checkExternal(): boolean {
    const now = this.database.externalChanges!();
    if (now === this.external) return true;
    this.external = now;
    this.changes++;
    this.entries.clear();
    return false;
  }
}
