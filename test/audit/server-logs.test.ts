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
const DO_BLOCK = 'DO $$\nBEGIN\n  SET search_path = pooltest_alt;\nEND $$';
const TIMED = "SELECT current_setting('work_mem') AS timed";

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
  } finally {
    await client.end();
  }
  // Duration logging instead of log_statement: a named statement then appears as `parse`,
  // `bind` and `execute` lines, and must still count as one execution. Changing the logging
  // needs the superuser (over the fixture's socket).
  const admin = new pg.Client({
    host: server.socketDir,
    port: server.port,
    user: 'postgres',
    database: server.database,
    connectionTimeoutMillis: 10_000,
  });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query("SET log_statement = 'none'");
    await admin.query('SET log_min_duration_statement = 0');
    await admin.query({ name: 'timed_q', text: TIMED });
    await admin.query(`SELECT '${DONE}'`);
  } finally {
    await admin.end();
  }
  const dir = join(server.dataDir, 'audit-log');
  // The logging collector writes through a pipe: wait until every file has the last statement.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const names = await readdir(dir);
    logs.stderr = join(dir, 'postgresql.log');
    logs.csvlog = join(dir, 'postgresql.csv');
    logs.jsonlog = join(dir, 'postgresql.json');
    const texts = await Promise.all(
      Object.values(logs).map((f) => (names.includes(f.slice(dir.length + 1)) ? readFile(f, 'utf8') : '')),
    );
    if (texts.every((t) => t.includes(DONE))) break;
    if (Date.now() > deadline)
      throw new Error(`log files in ${dir} never showed the workload's end (${names.join(', ')})`);
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
  expect(run.code).toBe(3); // findings that typically break, no pooler given
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
  `locks/advisory-session x1: ${MULTI_LINE_LOCK}`,
  `locks/advisory-session x1: ${TRY_LOCK}`,
  'notify/listen x1: LISTEN audit_jobs',
  // node-postgres's `{ name, text }` queries: `execute lastval_q: ...` twice; `timed_q` as
  // parse, bind and execute duration lines, one execution.
  'prepared/protocol-named x2: SELECT lastval()',
  `prepared/protocol-named x1: ${TIMED}`,
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
    expect(report.inputs[0]).toMatchObject({ kind: 'log', format, namedProtocolExecutions: 3 });
    // The server really wrote the parse and bind lines the count must not double.
    const text = await readFile(logs[format], 'utf8');
    expect(text).toMatch(/ms {2}parse timed_q: /);
    expect(text).toMatch(/ms {2}bind timed_q: /);
    expect(summary(report.findings)).toEqual(EXPECTED);
    // The unlock is the cleanup half of the lock: reported beside it, not as a break.
    expect(report.cleanups.map((c) => `${c.undoes.join(',')} x${c.count}: ${c.statement} paired=${c.paired}`)).toEqual([
      'locks/advisory-session x1: SELECT pg_advisory_unlock(77) paired=true',
    ]);
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

describe("a driver's named statements joined with a pooler where they fail", () => {
  /** The smallest pooltest report that says what the pooler does with named statements. */
  async function reportFile(outcome: string): Promise<string> {
    const file = out.file(`protocol-named-${outcome}.json`);
    const report = {
      schemaVersion: 2,
      target: { host: 'pooler', port: 6432, user: 'app', database: 'app', ssl: 'prefer' },
      checks: [{ id: 'prepared/protocol-named', outcome, verdict: 'observed', expected: null }],
    };
    await (await import('node:fs/promises')).writeFile(file, JSON.stringify(report));
    return file;
  }

  test.each(['stderr', 'csvlog', 'jsonlog'] as const)(
    '%s: `execute <name>:` lines and `prepared/protocol-named: failed` give a breaking finding and exit 1',
    async (format) => {
      const json = out.file(`named-${format}.json`);
      const run = await runAudit(['--log', logs[format], '--report', await reportFile('failed'), '--json', json]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(1);
      const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
      const named = report.findings.filter((f) => f.check === 'prepared/protocol-named');
      expect(named.map((f) => [f.statement, f.count, f.outcome, f.breaks])).toEqual([
        ['SELECT lastval()', 2, 'failed', true],
        [TIMED, 1, 'failed', true],
      ]);
      expect(named[0]!.what).toBe('named protocol statement "lastval_q"');
      expect(run.stdout).toMatch(/prepared\/protocol-named[\s\S]*on this pooler: failed -> BREAKS/);
    },
  );

  test('control: the same log against a pooler where named statements work exits 0 for them', async () => {
    const json = out.file('named-works.json');
    const run = await runAudit(['--log', logs.stderr, '--report', await reportFile('works'), '--json', json]);
    const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(report.findings.filter((f) => f.check === 'prepared/protocol-named').every((f) => f.breaks === false)).toBe(
      true,
    );
    // Other checks are not in this report: unknown, so not breaking.
    expect(run.code).toBe(0);
  });
});

test('reading a log as the wrong format is refused rather than audited as empty', async () => {
  const run = await runAudit(['--log', logs.jsonlog, '--log-format', 'csvlog']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('no PostgreSQL log entries found (read as csvlog)');
});
