/**
 * Releasing this run's session advisory locks without a word in the server log. The obvious
 * `WHILE pg_advisory_unlock(ns, k) LOOP END LOOP` ends with one unlock of a lock not held, and
 * PostgreSQL logs every such unlock as `WARNING: you don't own a lock of type ExclusiveLock`
 * (with its CONTEXT line), whatever the client's client_min_messages: a cleanup that ran on
 * every backend after every check wrote hundreds of them into a shared server's log. So the
 * lock table is read first, and only a lock this backend holds is released, once per level it
 * holds (advisory locks are re-entrant; pg_locks shows one row however often it was taken, so
 * it is read again after each release).
 */

/** Most releases of one key: a bound, so that no surprise can make the block spin for ever. */
const MAX_LEVELS = 1000;

/**
 * PL/pgSQL (for a DO block) that releases the two-key advisory locks (`namespace`, key) this
 * backend holds, exclusive or shared, for every key in `keys`, and touches no other.
 */
export function releaseHeldLocksSql(namespace: number, keys: readonly number[]): string {
  if (keys.length === 0) return '';
  // Two-key locks show as classid = first key, objid = second key, objsubid = 2. The keys are
  // int4 (markers.ts), so objid casts to the unlock's argument type without a detour.
  const held = `SELECT objid::int AS k, mode = 'ShareLock' AS shared INTO held FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND classid = ${namespace} AND objsubid = 2 AND objid IN (${keys.join(', ')}) AND pid = pg_catalog.pg_backend_pid() AND granted LIMIT 1`;
  return [
    `DECLARE held record; BEGIN`,
    `FOR i IN 1..${MAX_LEVELS} LOOP`,
    `${held};`,
    `EXIT WHEN NOT FOUND;`,
    // A lock pg_locks shows but an unlock cannot release (a transaction-level lock of the
    // session's own open transaction) would be shown again: stop at the first refusal.
    `EXIT WHEN NOT CASE WHEN held.shared THEN pg_catalog.pg_advisory_unlock_shared(${namespace}, held.k) ELSE pg_catalog.pg_advisory_unlock(${namespace}, held.k) END;`,
    `END LOOP;`,
    `END;`,
  ].join(' ');
}
