/**
 * The audit names COPY FROM STDIN and COPY TO STDOUT in PostgreSQL's own statement log
 * (log_statement = all), as libpq sends them through psycopg 3, with the protocol check they
 * depend on (copy/in-out) and advice, read from the stderr log by one process and by parallel
 * workers alike. Controls in the same log: a string that spells a COPY and a COPY's data rows
 * (never statements), which must name nothing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { PROTOCOL_CHECKS } from '../../audit/protocol-traffic.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const PYTHON = '/usr/bin/python3';
const hasPsycopg = spawnSync(PYTHON, ['-c', 'import psycopg'], { timeout: 20_000 }).status === 0;
const DONE = 'copy-workload-done';
const out = useScratchDir('copy');

const WORKLOAD = `
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute('CREATE TEMP TABLE copy_rows (n int, note text)')
    for _ in range(2):
        with conn.cursor().copy('COPY copy_rows (n, note) FROM STDIN') as copy:
            copy.write_row([1, 'COPY copy_rows FROM STDIN'])
    with conn.transaction():
        with conn.cursor().copy('COPY (SELECT n FROM copy_rows) TO STDOUT') as copy:
            list(copy.rows())
    conn.execute("SELECT 'COPY copy_rows TO STDOUT' AS just_a_string")
    conn.execute("SELECT '${DONE}'")
`;

let server: PostgresFixture;
let log = '';

beforeAll(async () => {
  if (!hasPsycopg) return;
  server = await startPostgres({
    settings: {
      logging_collector: 'on',
      log_destination: 'stderr',
      log_directory: 'copy-log',
      log_filename: 'postgresql.log',
      log_statement: 'all',
    },
  });
  const conninfo = `host=${server.host} port=${server.port} user=${server.user} dbname=${server.database} connect_timeout=10`;
  await promisify(execFile)(PYTHON, ['-c', WORKLOAD, conninfo], {
    timeout: 60_000,
    env: { ...process.env, PGPASSWORD: server.password },
  });
  log = join(server.dataDir, 'copy-log', 'postgresql.log');
  // The logging collector writes through a pipe: wait for the workload's last statement.
  const deadline = Date.now() + 15_000;
  while (!(await readFile(log, 'utf8').catch(() => '')).includes(DONE)) {
    if (Date.now() > deadline) throw new Error(`${log} never showed the workload's end`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

async function auditLog(extra: string[] = []): Promise<AuditReport> {
  const json = out.file(`${Math.random().toString(36).slice(2)}.json`);
  const run = await runAudit(['--log', log, '--json', json, ...extra]);
  expect(run.stderr).toBe('');
  return JSON.parse(await readFile(json, 'utf8')) as AuditReport;
}

describe.skipIf(!hasPsycopg)('COPY in a statement log (log_statement = all, libpq through psycopg 3)', () => {
  test('COPY FROM STDIN (twice) and COPY TO STDOUT are listed with copy/in-out; the string and the data rows are not', async () => {
    const a = await auditLog();
    const traffic = (a.traffic ?? []).map((t) => ({
      kind: t.kind,
      check: t.check,
      statement: t.statement,
      count: t.count,
    }));
    expect(traffic).toEqual([
      { kind: 'copy-in', check: PROTOCOL_CHECKS.copy, statement: 'COPY copy_rows (n, note) FROM STDIN', count: 2 },
      {
        kind: 'copy-out',
        check: PROTOCOL_CHECKS.copy,
        statement: 'COPY (SELECT n FROM copy_rows) TO STDOUT',
        count: 1,
      },
    ]);
    expect(a.traffic![0]!.source).toMatch(/postgresql\.log:\d+/);
    expect(a.traffic![0]!.advice).toMatch(/copy\/in-out/);
  });

  test('audit --merge adds up two reports of the same log', async () => {
    const files = [out.file('merge-a.json'), out.file('merge-b.json')];
    for (const f of files) expect((await runAudit(['--log', log, '--json', f])).stderr).toBe('');
    const merged = out.file('merged.json');
    const run = await runAudit(['--merge', ...files, '--json', merged]);
    expect(run.stderr).toBe('');
    const m = JSON.parse(await readFile(merged, 'utf8')) as AuditReport;
    expect(m.traffic?.map((t) => [t.kind, t.count])).toEqual([
      ['copy-in', 4],
      ['copy-out', 2],
    ]);
  });

  test('parallel workers read the same traffic as one process', async () => {
    const one = await auditLog(['--jobs', '1']);
    const many = await auditLog(['--jobs', '2']);
    expect(many.traffic?.map((t) => [t.kind, t.count])).toEqual(one.traffic?.map((t) => [t.kind, t.count]));
  });
});
