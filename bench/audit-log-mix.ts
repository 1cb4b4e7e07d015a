/**
 * The audit bench's log: a realistic mix of what servers log with log_statement = 'all'
 * (driver statements with `$n` placeholders repeated many times, ORM-style texts with inlined
 * values that never repeat, multi-line statements, DETAIL and connection lines, and some
 * statements that rely on session state). Shared by the bench and by the tests that must see
 * the same texts (the hazard screen's soundness, merging the reports of a log's halves).
 */
import { createWriteStream } from 'node:fs';

/** Driver statements: the same text every time, values travel as parameters. */
export const REPEATED = [
  'SELECT id, email, name FROM users WHERE id = $1',
  'SELECT * FROM orders WHERE user_id = $1 AND status = $2 ORDER BY created_at DESC LIMIT $3',
  'INSERT INTO events (kind, payload, created_at) VALUES ($1, $2, now()) RETURNING id',
  'UPDATE sessions SET last_seen = now() WHERE token = $1',
  'DELETE FROM carts WHERE expires_at < now() - $1::interval',
  'SELECT count(*) FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE c.region = $1 AND i.paid = false',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  "SET statement_timeout = '30s'",
  'SELECT pg_advisory_lock($1)',
  'SELECT pg_advisory_unlock($1)',
  "SELECT set_config('app.tenant_id', $1, false)",
  "SET LOCAL lock_timeout = '2s'",
  'LISTEN cache_invalidation',
  'SELECT pg_try_advisory_xact_lock($1)',
  'SELECT lastval()',
  "SELECT 'SET search_path = x' AS not_a_finding",
];

/** A multi-line statement: continuation lines start with a tab in the stderr format. */
export const MULTI_LINE =
  'WITH recent AS (\n  SELECT user_id, max(created_at) AS at\n  FROM logins GROUP BY user_id\n)\nSELECT u.id, r.at FROM users u JOIN recent r ON r.user_id = u.id WHERE u.id = $1';

/** ORM-style text with the values inlined: every one is a new text for the cache. */
export function inlined(i: number): string {
  switch (i % 3) {
    case 0:
      return `SELECT "products"."id", "products"."name", "products"."price" FROM "products" WHERE "products"."category_id" = ${i} AND "products"."active" = true LIMIT 20`;
    case 1:
      return `UPDATE "accounts" SET "balance" = "balance" - ${i % 997}, "updated_at" = '2026-01-01 10:00:${String(i % 60).padStart(2, '0')}' WHERE "accounts"."id" = ${i}`;
    default:
      return `INSERT INTO "audit_log" ("actor", "action", "at") VALUES ('user-${i}', 'login', now())`;
  }
}

const PREFIX = (i: number): string =>
  `2026-01-01 10:${String(Math.floor(i / 60000) % 60).padStart(2, '0')}:${String(Math.floor(i / 1000) % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')} UTC [${10000 + (i % 50)}] app@appdb `;

/** Writes a log of `statements` statements, `uniquePercent` of them texts seen only once. */
export async function generateLog(path: string, statements: number, uniquePercent: number): Promise<void> {
  const out = createWriteStream(path);
  let buffer = '';
  for (let i = 0; i < statements; i++) {
    const p = PREFIX(i);
    if (i % 100 < uniquePercent) buffer += `${p}LOG:  statement: ${inlined(i)}\n`;
    else if (i % 25 === 3) buffer += `${p}LOG:  statement: ${MULTI_LINE.replace(/\n/g, '\n\t')}\n`;
    else {
      const text = REPEATED[i % REPEATED.length]!;
      if (text.includes('$1')) buffer += `${p}LOG:  execute <unnamed>: ${text}\n${p}DETAIL:  parameters: $1 = '${i}'\n`;
      else buffer += `${p}LOG:  statement: ${text}\n`;
    }
    if (i % 5000 === 0) buffer += `${p}LOG:  connection received: host=10.0.0.${i % 250} port=${40000 + (i % 2000)}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await new Promise<void>((r) => out.once('drain', () => r()));
      buffer = '';
    }
  }
  out.end(buffer);
  await new Promise<void>((r) => out.once('finish', () => r()));
}
