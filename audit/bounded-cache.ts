/**
 * A least-recently-used map bounded by entry count and by the total length of its string keys,
 * so that a log of any size keeps the audit's memory flat: the cache is what makes repeated
 * statement texts cheap, and it must never become the thing that grows.
 */
export class BoundedCache<V> {
  private readonly map = new Map<string, V>();
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
    const value = this.map.get(key);
    if (value !== undefined) {
      // Re-insert: Map keeps insertion order, so the oldest entries stay at the front.
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength) return;
    if (this.map.has(key)) this.map.delete(key);
    else this.keyChars += key.length;
    this.map.set(key, value);
    if (this.map.size > this.maxEntries || this.keyChars > this.maxKeyChars) this.evict();
  }

  /**
   * Drops the oldest tenth in one pass. Evicting one entry per insert would restart a key
   * iterator each time, and V8 skips the deleted slots at the front of a Map on every restart:
   * quadratic in practice. One pass per tenth keeps insertion amortised O(1).
   */
  private evict(): void {
    const entryGoal = Math.floor(this.maxEntries * 0.9);
    const charGoal = Math.floor(this.maxKeyChars * 0.9);
    for (const key of this.map.keys()) {
      if (this.map.size <= entryGoal && this.keyChars <= charGoal) break;
      this.map.delete(key);
      this.keyChars -= key.length;
    }
  }
}
