/**
 * A least-recently-used map bounded by entry count and by the total length of its string keys,
 * so that a log of any size keeps the audit's memory flat: the cache is what makes repeated
 * statement texts cheap, and it must never become the thing that grows.
 *
 * Recency is a doubly linked list beside the Map. Refreshing an entry by deleting and
 * re-inserting it in the Map (as this class once did) leaves a deleted slot per hit, and V8
 * rebuilds a nearly full table again and again: about 10 µs a hit with 20,000 entries, the
 * audit's dearest step once the parser is screened off.
 */
interface Entry<V> {
  key: string;
  value: V;
  older: Entry<V> | null;
  newer: Entry<V> | null;
}

export class BoundedCache<V> {
  private readonly map = new Map<string, Entry<V>>();
  private oldest: Entry<V> | null = null;
  private newest: Entry<V> | null = null;
  private keyChars = 0;

  /**
   * @param maxEntries most entries kept
   * @param maxKeyChars most characters of all keys together
   * @param maxKeyLength longer keys are not cached (large texts rarely repeat)
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyChars: number,
    private readonly maxKeyLength: number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.touch(entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength) return;
    const known = this.map.get(key);
    if (known !== undefined) {
      known.value = value;
      this.touch(known);
      return;
    }
    const entry: Entry<V> = { key, value, older: this.newest, newer: null };
    if (this.newest !== null) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    this.map.set(key, entry);
    this.keyChars += key.length;
    if (this.map.size > this.maxEntries || this.keyChars > this.maxKeyChars) this.evict();
  }

  /** Makes `entry` the most recently used. */
  private touch(entry: Entry<V>): void {
    if (entry === this.newest) return;
    // Unlink (it has a newer neighbour, since it is not the newest)...
    entry.newer!.older = entry.older;
    if (entry.older !== null) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    // ...and append.
    entry.older = this.newest;
    entry.newer = null;
    this.newest!.newer = entry;
    this.newest = entry;
  }

  /** Drops the least recently used entries down to nine tenths of both bounds, in one pass. */
  private evict(): void {
    const entryGoal = Math.floor(this.maxEntries * 0.9);
    const charGoal = Math.floor(this.maxKeyChars * 0.9);
    while (this.oldest !== null && (this.map.size > entryGoal || this.keyChars > charGoal)) {
      const entry = this.oldest;
      this.oldest = entry.newer;
      if (this.oldest !== null) this.oldest.older = null;
      else this.newest = null;
      this.map.delete(entry.key);
      this.keyChars -= entry.key.length;
    }
  }
}
