/**
 * One line of advice per driver result that needs action, naming the driver's exact option in
 * the version the agent reported (a driver's `howFor`: pgx v4 and v5 spell it differently).
 * A default that fails gets the advised configuration; an advised configuration that still
 * fails gets the pooler-side fix, since the driver has nothing more to turn off.
 */
import type { DriverConfig, DriverSpec } from './catalogue.js';

const POOLER_FIX =
  "turn on the pooler's protocol-level prepared statement tracking (PgBouncer >= 1.21: max_prepared_statements > 0), or give this client a session-pooled or direct connection";

export function adviceFor(
  driver: DriverSpec,
  config: DriverConfig,
  scenario: string,
  outcome: string | null,
  version: string | null = null,
): string | null {
  if (outcome === 'stalled')
    return `${driver.title}'s batch (${driver.batch ?? 'its batch call'}) got no answer through this pooler: give batching clients a session-pooled or direct connection, or send the rows in one statement (a multi-row INSERT).`;
  if (outcome === 'split')
    return `The pooler ran one transaction's batch on more than one backend, so it was not atomic: give this client a session-pooled or direct connection.`;
  if (outcome !== 'failed' && outcome !== 'retried') return null;
  const how = (c: DriverConfig): string => driver.howFor?.(c, version) ?? c.how;
  const poolerFix = driver.poolerFix?.(version) ?? POOLER_FIX;
  // A lock released on another backend is no statement a pooler can track or replay.
  if (scenario === 'migration') {
    const off = driver.configs.find((c) => c.advised && c !== config);
    return `${off && !config.advised ? `Use ${how(off)}, or run` : 'Run'} migrations over a direct or session-pooled connection: ${driver.title}'s migration takes a session advisory lock and releases it in a later transaction.`;
  }
  const fix = driver.configs.find((c) => c.advised && c.transaction === config.transaction && c !== config);
  // A driver that names no statements failed on the cursor itself (Django's WITH HOLD cursor):
  // no pooler carries a cursor from one transaction to the next, so statement tracking is no fix.
  if (scenario === 'cursor' && driver.namePattern === null && outcome === 'failed')
    return `${fix && !config.advised ? `Use ${how(fix)}, or give` : 'Give'} this client a session-pooled or direct connection: no pooler carries a cursor from one transaction to the next.`;
  if (outcome === 'retried')
    return fix
      ? `${driver.title} got the server's error, re-prepared and sent the query again (a failed statement on the server each time, and no retry once a transaction has done work): use ${how(fix)}, or ${poolerFix}.`
      : `${driver.title} retried after a server error: ${poolerFix}.`;
  if (fix && !config.advised) return `Use ${how(fix)}, or ${poolerFix}.`;
  // An advised configuration's batch that fails: named statements are off, so what broke is a
  // batch call of several round trips (asyncpg's executemany prepares the unnamed statement,
  // then executes it) that the pooler split between backends; no tracking follows the unnamed one.
  if (scenario === 'batch')
    return `${how(config)} is not enough for its batch call (${driver.batch ?? '?'}): the pooler moved the client between the call's round trips. Send the batch inside a transaction, or give this client a session-pooled or direct connection.`;
  const what =
    scenario === 'cursor'
      ? `${driver.cursor ?? 'its cursor'} still names statements or portals`
      : 'it still names statements';
  return `${how(config)} is not enough here (${what}): ${poolerFix}.`;
}
