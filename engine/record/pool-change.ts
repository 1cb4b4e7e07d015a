/** A pool found smaller after a destructive check (engine/discovery/pool-watch.ts), and its words. */
export interface PoolChange {
  /** The check after which the pool was found smaller. */
  check: string;
  before: number;
  after: number;
  /** Later checks cannot be steered on what is left (fewer than 2 backends, or no count). */
  blocking: boolean;
}

/** The finding's words, for the check that caused it and for the ones after it. */
export function describeChange(c: PoolChange): string {
  return `the pool was smaller after ${c.check}: ${c.before} backend(s) before, ${c.after} after (counted again)`;
}
