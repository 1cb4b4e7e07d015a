/**
 * One line of advice per driver result that needs action, naming the driver's exact option.
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
): string | null {
  if (outcome !== 'failed' && outcome !== 'retried') return null;
  // A lock released on another backend is no statement a pooler can track or replay.
  if (scenario === 'migration') {
    const off = driver.configs.find((c) => c.advised && c !== config);
    return `${off && !config.advised ? `Use ${off.how}, or run` : 'Run'} migrations over a direct or session-pooled connection: ${driver.title}'s migration takes a session advisory lock and releases it in a later transaction.`;
  }
  const fix = driver.configs.find((c) => c.advised && c.transaction === config.transaction && c !== config);
  // A driver that names no statements failed on the cursor itself (Django's WITH HOLD cursor):
  // no pooler carries a cursor from one transaction to the next, so statement tracking is no fix.
  if (scenario === 'cursor' && driver.namePattern === null && outcome === 'failed')
    return `${fix && !config.advised ? `Use ${fix.how}, or give` : 'Give'} this client a session-pooled or direct connection: no pooler carries a cursor from one transaction to the next.`;
  if (outcome === 'retried')
    return fix
      ? `${driver.title} got the server's error, re-prepared and sent the query again (a failed statement on the server each time, and no retry once a transaction has done work): use ${fix.how}, or ${POOLER_FIX}.`
      : `${driver.title} retried after a server error: ${POOLER_FIX}.`;
  if (fix && !config.advised) return `Use ${fix.how}, or ${POOLER_FIX}.`;
  const what =
    scenario === 'cursor'
      ? `${driver.cursor ?? 'its cursor'} still names statements or portals`
      : 'it still names statements';
  return `${config.how} is not enough here (${what}): ${POOLER_FIX}.`;
}
