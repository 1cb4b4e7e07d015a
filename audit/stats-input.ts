/**
 * `--stats URL`: the statements PostgreSQL itself counted in `pg_stat_statements`, read over a
 * direct connection, each weighted by its `calls`. Every step is time-bounded, and every way it
 * can be unavailable (library not preloaded, extension not created, texts hidden from this role)
 * ends in a message that says how to fix it. The URL's password is never shown.
 */
import type pg from 'pg';
import { PooltestError } from '../engine/record/errors.js';
import { connectClient } from '../engine/session/connect.js';
import { describeTarget, resolveTarget, type Target } from '../engine/target/target.js';
import type { AuditCollector } from './audit-collector.js';
import type { InputSummary } from './audit-types.js';

/** How to read pg_stat_statements. */
export interface StatsInputOptions {
  /** Bound for connecting and for each query, in ms. */
  timeoutMs: number;
  /** Accept that rows of other roles are hidden (their texts show as `<insufficient privilege>`). */
  allowHidden: boolean;
}

/** What pg_stat_statements shows instead of another role's query without pg_read_all_stats. */
const HIDDEN_TEXT = '<insufficient privilege>';

interface StatsRow {
  query: string | null;
  calls: string;
  datname: string | null;
  rolname: string | null;
}

/** Reads pg_stat_statements into the collector. */
export async function auditStats(
  url: string,
  collector: AuditCollector,
  opts: StatsInputOptions,
): Promise<{ summary: InputSummary; warnings: string[] }> {
  const target = resolveTarget({ target: url });
  const where = describeTarget(target);
  const client = await connectClient(target, opts.timeoutMs, 'pooltest audit');
  try {
    const schema = await extensionSchema(client, target, opts.timeoutMs);
    const rows = await readRows(client, schema, target, opts.timeoutMs);
    const hidden = rows.filter((r) => r.query === null || r.query === HIDDEN_TEXT);
    const warnings: string[] = [];
    if (hidden.length > 0) {
      const calls = hidden.reduce((sum, r) => sum + Number(r.calls), 0);
      const message =
        `${hidden.length} of ${rows.length} statements in pg_stat_statements at ${where} (${calls} calls) are hidden from role "${target.user}": ` +
        `their text shows as ${HIDDEN_TEXT}. Run GRANT pg_read_all_stats TO "${target.user}"; (or connect as a superuser)`;
      if (!opts.allowHidden) {
        throw new PooltestError(
          'AUDIT_STATS_PERMISSION',
          `${message}, or pass --stats-partial to audit only the visible ones.`,
          { target: where, hidden: hidden.length },
        );
      }
      warnings.push(`${message}. Audited only the visible ones (--stats-partial).`);
    }
    const before = collector.statements;
    for (const row of rows) {
      if (row.query === null || row.query === HIDDEN_TEXT) continue;
      const calls = Number(row.calls);
      const source = `pg_stat_statements (db ${row.datname ?? '?'}, user ${row.rolname ?? '?'}, calls ${calls})`;
      collector.consume(row.query, calls, () => source);
    }
    return { summary: { kind: 'stats', name: where, statements: collector.statements - before }, warnings };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The schema pg_stat_statements lives in, or a coded error saying how to enable it. */
async function extensionSchema(client: pg.Client, target: Target, timeoutMs: number): Promise<string> {
  const found = await bounded(
    client,
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'`,
    target,
    timeoutMs,
  );
  const schema = (found.rows[0] as { schema?: string } | undefined)?.schema;
  if (schema !== undefined) return schema;
  // shared_preload_libraries is readable only by superusers and pg_read_all_settings; the
  // library's own settings appear in pg_settings for everyone once it is loaded.
  const settings = await bounded(
    client,
    `SELECT name, setting FROM pg_settings WHERE name IN ('pg_stat_statements.max', 'shared_preload_libraries')`,
    target,
    timeoutMs,
  );
  const byName = new Map((settings.rows as Array<{ name: string; setting: string }>).map((r) => [r.name, r.setting]));
  const loaded = byName.has('pg_stat_statements.max');
  const libs = byName.has('shared_preload_libraries')
    ? `currently '${byName.get('shared_preload_libraries')}'`
    : 'not readable by this role';
  const create = `then run CREATE EXTENSION pg_stat_statements; in database "${target.database}"`;
  const where = describeTarget(target);
  const preload = `add it to shared_preload_libraries in postgresql.conf (${libs}) and restart PostgreSQL`;
  throw new PooltestError(
    'AUDIT_STATS_UNAVAILABLE',
    loaded
      ? `pg_stat_statements is preloaded at ${where} but the extension is not created in database "${target.database}": run CREATE EXTENSION pg_stat_statements; there`
      : `pg_stat_statements is not enabled at ${where}: ${preload}, ${create}`,
    { target: where, preloaded: loaded },
  );
}

async function readRows(client: pg.Client, schema: string, target: Target, timeoutMs: number): Promise<StatsRow[]> {
  const sql =
    `SELECT s.query, s.calls::text AS calls, d.datname, r.rolname FROM ${client.escapeIdentifier(schema)}.pg_stat_statements s ` +
    `LEFT JOIN pg_database d ON d.oid = s.dbid LEFT JOIN pg_roles r ON r.oid = s.userid`;
  try {
    return (await bounded(client, sql, target, timeoutMs)).rows as StatsRow[];
  } catch (error) {
    const e = error as { code?: string; message?: string };
    const where = describeTarget(target);
    if (e.code === '55000') {
      const fix = 'add pg_stat_statements to shared_preload_libraries and restart PostgreSQL';
      throw new PooltestError(
        'AUDIT_STATS_UNAVAILABLE',
        `pg_stat_statements exists in database "${target.database}" at ${where} but its library is not loaded: ${fix} (${e.message})`,
        { target: where, sqlstate: e.code },
      );
    }
    if (e.code === '42501') {
      const fix = `GRANT pg_read_all_stats TO "${target.user}"; and GRANT USAGE on its schema`;
      throw new PooltestError(
        'AUDIT_STATS_PERMISSION',
        `role "${target.user}" may not read pg_stat_statements at ${where}: ${e.message}. ${fix}`,
        {
          target: where,
          sqlstate: e.code,
        },
      );
    }
    throw error;
  }
}

/**
 * One query with a time bound; on timeout the connection is closed so nothing keeps waiting.
 * Postgres errors are kept verbatim (SQLSTATE and message) in a coded error.
 */
async function bounded(client: pg.Client, sql: string, target: Target, timeoutMs: number): Promise<pg.QueryResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      client.query(sql).catch((error: unknown) => {
        const e = error as { code?: string; message?: string };
        if (e.code === '55000' || e.code === '42501') throw error; // mapped by the caller
        const sqlstate = e.code !== undefined ? `${e.code} ` : '';
        throw new PooltestError(
          'AUDIT_STATS_UNAVAILABLE',
          `reading pg_stat_statements at ${describeTarget(target)} failed: ${sqlstate}${e.message ?? String(error)}`,
          {
            target: describeTarget(target),
            sqlstate: e.code ?? null,
          },
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          void client.end().catch(() => undefined);
          reject(
            new PooltestError(
              'STEP_TIMEOUT',
              `reading pg_stat_statements at ${describeTarget(target)} took longer than ${timeoutMs} ms`,
              { target: describeTarget(target) },
            ),
          );
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
