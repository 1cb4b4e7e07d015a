/**
 * Logs written by a real PostgreSQL with log_statement = 'all', in all three formats at once
 * (logging_collector with log_destination = 'stderr,csvlog,jsonlog'), from one workload sent
 * through `pg` with both the simple and the extended protocol. The audit must find the same
 * statements, with the same counts, in each format, and point at the line each entry starts on.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AuditFinding, AuditReport } from '../../audit/audit-types.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

let server: PostgresFixture;
const out = useScratchDir('logs');
const logs: Record<'stderr' | 'csvlog' | 'jsonlog', string> = { stderr: '', csvlog: '', jsonlog: '' };
const DONE = 'audit-workload-done';

/** A tab at the start of a line inside a statement: stderr's continuation marker must not eat it. */
const TRY_LOCK = "SELECT pg_try_advisory_lock(5) AS got,\n\t'tab-indented' AS s";
const MULTI_LINE_LOCK = "SELECT pg_advisory_lock(77),\n       'second line'";
const DO_BLOCK = "DO $$\nBEGIN\n  SET search_path = pooltest_alt;\nEND $$";

beforeAll(async () => {
  server = await startPostgres({
    settings: {
      logging_collector: 'on',
      log_destination: 'stderr,csvlog,jsonlog',
      log_directory: 'audit-log',
      log_filename: 'postgresql.log',
      log_rotation_age: '0',
      log_rotation_size: '0',
      log_statement: 'all',
    },
  });
  const client = new pg.Client({ connectionString: server.url(), connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Simple protocol: logged as `statement: ...`.
    await client.query("SET statement_timeout = '5s'");
    await client.query(MULTI_LINE_LOCK);
    await client.query(TRY_LOCK);
    await client.query("BEGIN; SET LOCAL lock_timeout = '1s'; COMMIT");
    await client.query("SELECT 'SET search_path = nowhere' AS just_a_string");
    await client.query('LISTEN audit_jobs');
    await client.query('CREATE TEMP TABLE audit_tmp (i int)');
    await client.query("SET app.tenant = '7'; SELECT 1");
    await client.query(DO_BLOCK);
    await client.query('SELECT * FROM no_such_table').catch(() => undefined);
    await client.query('SELECT pg_advisory_unlock(77)');
    await client.query('CREATE SEQUENCE audit_seq');
    await client.query("SELECT nextval('audit_seq')");
    // Extended protocol: logged as `execute <unnamed>: ...` and `execute lastval_q: ...`.
    await client.query({ text: 'SELECT set_config($1, $2, false)', values: ['app.user', 'u1'] });
    await client.query({ name: 'lastval_q', text: 'SELECT lastval()' });
    await client.query({ name: 'lastval_q', text: 'SELECT lastval()' });
    await client.query(`SELECT '${DONE}'`);
  } finally {
    await client.end();
  }
  const dir = join(server.dataDir, 'audit-log');
  // The logging collector writes through a pipe: wait until every file has the last statement.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const names = await readdir(dir);
    logs.stderr = join(dir, 'postgresql.log');
    logs.csvlog = join(dir, 'postgresql.csv');
    logs.jsonlog = join(dir, 'postgresql.json');
    const texts = await Promise.all(Object.values(logs).map((f) => (names.includes(f.slice(dir.length + 1)) ? readFile(f, 'utf8') : '')));
    if (texts.every((t) => t.includes(DONE))) break;
    if (Date.now() > deadline) throw new Error(`log files in ${dir} never showed the workload's end (${names.join(', ')})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function auditLog(file: string, extra: string[] = []): Promise<AuditReport> {
  const json = out.file(`${Math.random().toString(36).slice(2)}.json`);
  const run = await runAudit(['--log', file, '--json', json, ...extra]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(await readFile(json, 'utf8')) as AuditReport;
}

/**
 * The fixture's own setup (`SET log_statement = 'none'; ...`) is logged before it takes effect:
 * real findings, but not the workload's.
 */
function summary(findings: AuditFinding[]): string[] {
  return findings
    .filter((f) => !f.statement.startsWith('SET log_'))
    .map((f) => `${f.check} x${f.count}: ${f.statement}`)
    .sort();
}

const EXPECTED = [
  'locks/advisory-session x1: SELECT pg_advisory_unlock(77)',
  `locks/advisory-session x1: ${MULTI_LINE_LOCK}`,
  `locks/advisory-session x1: ${TRY_LOCK}`,
  'notify/listen x1: LISTEN audit_jobs',
  'sequences/lastval x2: SELECT lastval()',
  "session/custom-guc-leak x1: SET app.tenant = '7'",
  `session/search-path-leak x1: ${DO_BLOCK}`,
  'session/set-leak x1: SELECT set_config($1, $2, false)',
  "session/set-leak x1: SET statement_timeout = '5s'",
  'temp/temp-table x1: CREATE TEMP TABLE audit_tmp (i int)',
].sort();

describe.each(['stderr', 'csvlog', 'jsonlog'] as const)('a real server log in %s format', (format) => {
  test('is detected, and every statement relying on session state is found once, as sent', async () => {
    const report = await auditLog(logs[format]);
    expect(report.inputs[0]).toMatchObject({ kind: 'log', format, namedProtocolExecutions: 2 });
    expect(summary(report.findings)).toEqual(EXPECTED);
    expect(report.unparsed.count).toBe(0);
    // The extended-protocol set_config has its name and is_local as parameters: kept, uncertain.
    expect(report.findings.find((f) => f.statement.startsWith('SELECT set_config'))).toMatchObject({ certain: false });
  });

  test('each source is the line its log entry starts on', async () => {
    const report = await auditLog(logs[format]);
    const lines = (await readFile(logs[format], 'utf8')).split('\n');
    for (const f of report.findings) {
      const line = Number(f.source.slice(f.source.lastIndexOf(':') + 1));
      const firstLine = f.statement.split('\n')[0]!;
      const entry = format === 'jsonlog' ? JSON.stringify(firstLine).slice(1, -1) : firstLine;
      expect(lines[line - 1], `${f.check} at ${f.source}`).toContain(entry);
    }
  });

  test('--log-format given explicitly reads it the same way', async () => {
    const report = await auditLog(logs[format], ['--log-format', format]);
    expect(summary(report.findings)).toEqual(EXPECTED);
  });
});

test('reading a log as the wrong format is refused rather than audited as empty', async () => {
  const run = await runAudit(['--log', logs.jsonlog, '--log-format', 'csvlog']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('no PostgreSQL log entries found (read as csvlog)');
});
