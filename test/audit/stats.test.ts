/**
 * `--stats URL` against a real PostgreSQL with pg_stat_statements preloaded: a workload runs
 * through it, the audit reads it back with call counts. Also every way the view can be
 * unavailable (not preloaded, extension missing, texts hidden from the role) and the bound on
 * a server that never answers. The URL's password must never be printed.
 */
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

/** Passwords that must never appear in any output. */
const AUDITOR_PW = 'aud-S3cret-pw';
const NOSY_PW = 'nosy-S3cret-pw';

let server: PostgresFixture;
let bare: PostgresFixture;
const out = useScratchDir('stats');

async function superuser(fixture: PostgresFixture, database: string, sql: string): Promise<void> {
  const client = new pg.Client({ host: fixture.socketDir, port: fixture.port, user: 'postgres', database });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function urlFor(fixture: PostgresFixture, user: string, password: string, database = fixture.database): string {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${fixture.port}/${database}`;
}

beforeAll(async () => {
  [server, bare] = await Promise.all([
    startPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements' } }),
    startPostgres(),
  ]);
  await superuser(
    server,
    server.database,
    `CREATE EXTENSION pg_stat_statements;
     CREATE ROLE auditor LOGIN PASSWORD '${AUDITOR_PW}' IN ROLE pg_read_all_stats;
     CREATE ROLE nosy LOGIN PASSWORD '${NOSY_PW}';`,
  );
  await superuser(server, server.database, 'SELECT pg_stat_statements_reset()');
  const app = new pg.Client({ connectionString: server.url() });
  app.on('error', () => undefined);
  await app.connect();
  try {
    for (let i = 0; i < 3; i++) await app.query('SET search_path = pooltest_alt, public');
    for (let i = 0; i < 2; i++) await app.query("SELECT set_config('app.tenant', '9', false)");
    await app.query('SELECT pg_advisory_lock(11)');
    await app.query('SELECT pg_advisory_unlock(11)');
    await app.query('LISTEN stats_jobs');
    // A driver's named statement: pg_stat_statements keeps its text, never its name.
    await app.query({ name: 'stats_named', text: 'SELECT 6 * 7 AS named_answer' });
    await app.query('CREATE TEMP TABLE stats_tmp (i int)');
    for (let i = 0; i < 5; i++) await app.query('SELECT 1 + 1');
    await app.query('BEGIN');
    await app.query("SET LOCAL lock_timeout = '1s'");
    await app.query('COMMIT');
  } finally {
    await app.end();
  }
}, 90_000);

afterAll(async () => {
  await Promise.all([server?.stop(), bare?.stop()]);
});

function expectNoPassword(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(AUDITOR_PW);
    expect(text).not.toContain(NOSY_PW);
    expect(text).not.toContain(encodeURIComponent(AUDITOR_PW));
  }
}

describe('pg_stat_statements of a real server', () => {
  test('the workload is read back with call counts', async () => {
    const json = out.file('stats.json');
    const run = await runAudit(['--stats', urlFor(server, 'auditor', AUDITOR_PW), '--json', json]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3); // findings that typically break, no pooler given
    const text = await readFile(json, 'utf8');
    expectNoPassword(run.stdout, text);
    const report = JSON.parse(text) as AuditReport;
    expect(report.inputs[0]).toMatchObject({ kind: 'stats', name: `auditor@127.0.0.1:${server.port}/pooltest` });
    const found = report.findings.map((f) => `${f.check} x${f.count}: ${f.statement}`).sort();
    expect(found).toEqual(
      [
        'locks/advisory-session x1: SELECT pg_advisory_lock($1)',
        'notify/listen x1: LISTEN stats_jobs',
        // pg_stat_statements replaces the constants, so name and is_local are gone: kept, uncertain.
        'session/set-leak x2: SELECT set_config($1, $2, $3)',
        'session/search-path-leak x3: SET search_path = pooltest_alt, public',
        'temp/temp-table x1: CREATE TEMP TABLE stats_tmp (i int)',
      ].sort(),
    );
    expect(report.findings.find((f) => f.statement.startsWith('SELECT set_config'))).toMatchObject({ certain: false });
    expect(report.findings.find((f) => f.check === 'session/search-path-leak')!.source).toBe(
      'pg_stat_statements (db pooltest, user pooltest, calls 3)',
    );
    expect(run.stdout).toContain('session/search-path-leak');
    // The unlock is the cleanup half of the lock, not a finding.
    expect(report.cleanups.map((c) => `${c.statement} x${c.count} paired=${c.paired}`)).toEqual([
      'SELECT pg_advisory_unlock($1) x1 paired=true',
    ]);
    // What pg_stat_statements cannot show: the named statement ran, but by text only.
    expect(report.findings.some((f) => f.check === 'prepared/protocol-named')).toBe(false);
    expect(report.warnings.join('\n')).toContain('pg_stat_statements records no statement names');
  });

  test('a role without pg_read_all_stats sees <insufficient privilege>: refused with how to grant it', async () => {
    const run = await runAudit(['--stats', urlFor(server, 'nosy', NOSY_PW)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /AUDIT_STATS_PERMISSION: \d+ of \d+ statements in pg_stat_statements at nosy@127\.0\.0\.1:\d+\/pooltest \(\d+ calls\) are hidden from role "nosy"/,
    );
    expect(run.stderr).toContain('GRANT pg_read_all_stats TO "nosy"');
    expectNoPassword(run.stdout, run.stderr);
  });

  test('with --stats-partial the visible rows are audited and the gap is a warning', async () => {
    const json = out.file('partial.json');
    const run = await runAudit(['--stats', urlFor(server, 'nosy', NOSY_PW), '--stats-partial', '--json', json]);
    expect(run.code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(report.findings.filter((f) => f.source.includes('user pooltest'))).toEqual([]);
    expect(report.warnings.join('\n')).toMatch(/are hidden from role "nosy"/);
  });

  test('a database without the extension: how to create it', async () => {
    const run = await runAudit(['--stats', urlFor(server, 'auditor', AUDITOR_PW, 'postgres')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('AUDIT_STATS_UNAVAILABLE: pg_stat_statements is preloaded at auditor@127.0.0.1');
    expect(run.stderr).toContain('run CREATE EXTENSION pg_stat_statements; there');
    expectNoPassword(run.stderr);
  });

  test('a server without the library preloaded: how to enable it', async () => {
    const run = await runAudit(['--stats', bare.url()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'add it to shared_preload_libraries in postgresql.conf (not readable by this role) and restart PostgreSQL',
    );
    expect(run.stderr).toContain('CREATE EXTENSION pg_stat_statements');
    expect(run.stderr).not.toContain(bare.password);
  });

  test('the extension created but the library not preloaded', async () => {
    await superuser(bare, bare.database, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const run = await runAudit(['--stats', bare.url()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('AUDIT_STATS_UNAVAILABLE');
    expect(run.stderr).toContain('its library is not loaded: add pg_stat_statements to shared_preload_libraries');
  });
});

describe('network bounds', () => {
  test('a server that accepts but never answers is given up on after --timeout', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      const run = await runAudit([
        '--stats',
        `postgres://auditor:${AUDITOR_PW}@127.0.0.1:${port}/db`,
        '--timeout',
        '300ms',
      ]);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/STEP_TIMEOUT|TARGET_UNREACHABLE/);
      expectNoPassword(run.stderr, run.stdout);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('a malformed URL is refused without echoing its password', async () => {
    const run = await runAudit(['--stats', `postgres://auditor:${AUDITOR_PW}@127.0.0.1:99999/db`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('BAD_TARGET_URL');
    expectNoPassword(run.stderr);
  });
});
