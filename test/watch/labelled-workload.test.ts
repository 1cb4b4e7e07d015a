/**
 * The labelled workload through the recording proxy against a real PostgreSQL (SCRAM
 * authentication passing through untouched): every dependent case gives its finding with both
 * statements, every control gives none, and precision and recall are measured over the set.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startWatch } from '../../watch/watch.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { CONTROL, DEPENDENT, connectTo, type LabelledCase } from '../support/watch-workloads.js';

let server: PostgresFixture;

beforeAll(async () => {
  server = await startPostgres();
  const setup = new pg.Client({ connectionString: server.url() });
  setup.on('error', () => undefined);
  await setup.connect();
  await setup.query('CREATE SCHEMA watch_app; CREATE TABLE watch_app.watch_items (id int); CREATE SEQUENCE watch_seq');
  await setup.end();
});

afterAll(async () => {
  await server?.stop();
});

/** Runs cases, each on its own connection through a fresh watch, and returns the report. */
async function watchCases(cases: LabelledCase[]): Promise<WatchReport> {
  const watching = await startWatch({ upstream: server.url() });
  try {
    for (const c of cases) {
      await c.run(() =>
        connectTo(
          {
            host: watching.host,
            port: watching.port,
            user: server.user,
            password: server.password,
            database: server.database,
          },
          c.name.slice(0, 60),
        ),
      );
    }
  } finally {
    var report = await watching.stop();
  }
  return report;
}

const found = (r: WatchReport): string[] => r.findings.map((f) => `${f.check}|${f.state}`);

describe('labelled workload through the proxy', () => {
  test('each dependent case is found with the creating and the relying statement', async () => {
    const report = await watchCases(DEPENDENT);
    const expected = DEPENDENT.flatMap((c) => c.expect);
    expect(found(report).sort()).toEqual([...expected].sort());
    const lock = report.findings.find((f) => f.check === 'locks/advisory-session')!;
    // The bound parameter makes the key: lock and unlock are matched by value, not by text.
    expect(lock.created.sql).toBe('SELECT pg_advisory_lock($1)');
    expect(lock.used?.sql).toBe('SELECT pg_advisory_unlock($1)');
    expect(lock.use).toBe('explicit');
    expect(lock.used?.transaction).toBeGreaterThan(lock.created.transaction);
    const named = report.findings.find((f) => f.check === 'prepared/protocol-named')!;
    expect(named.created.sql).toBe('SELECT $1::int AS id');
    expect(named.used?.what).toBe('Bind to named statement "fetch-item"');
    expect(named.connection.applicationName).toContain('named statement');
    const path = report.findings.find((f) => f.check === 'session/search-path-leak')!;
    expect(path).toMatchObject({
      use: 'implicit',
      created: { sql: 'SET search_path = watch_app, public' },
      used: { sql: 'SELECT count(*) FROM watch_items' },
    });
    // The LISTEN nobody notified and the statement used once are findings too: they would break.
    const deaf = report.findings.find((f) => f.state === 'LISTEN worker:migrate')!;
    expect(deaf).toMatchObject({ evidence: 'would-break', use: 'none', used: null });
    expect(deaf.how).toMatch(/goes deaf/);
    const once = report.findings.find((f) => f.state === 'prepared statement complete_job_q')!;
    expect(once).toMatchObject({ evidence: 'would-break', use: 'none', used: null });
    expect(once.how).toMatch(/collide/);
    // A dependency exercised in the run is seen, not merely predicted.
    expect(named.evidence).toBe('seen');
    // Only the unqualified query is a use of search_path, though the qualified one ran first.
    const paths = report.findings.filter((f) => f.check === 'session/search-path-leak');
    expect(paths.map((f) => f.used?.sql).sort()).toEqual([
      'CREATE TABLE IF NOT EXISTS scratch_plain (id int, note text)',
      'SELECT count(*) FROM watch_items',
      'SELECT count(*) FROM watch_items',
    ]);
    expect(paths.find((f) => f.used?.sql === 'SELECT count(*) FROM watch_items')!.used!.what).toBe(
      'resolves relation watch_items through search_path',
    );
    // A temp table is not resolved through search_path (issue 40), neither when it is created
    // nor when named later; its own finding is the temp table's.
    expect(paths.find((f) => f.created.sql === 'SET search_path = public, watch_app')).toBeUndefined();
    const scratch = report.findings.find((f) => f.state === 'temporary relation scratch')!;
    expect(scratch).toMatchObject({ use: 'explicit', used: { sql: "INSERT INTO scratch VALUES (1, 'a')" } });
    const tz = report.findings.find((f) => f.check === 'session/tracked-parameter')!;
    expect(tz).toMatchObject({ used: { sql: 'SELECT now()::text AS at' }, parameter: 'timezone' });
    // Typical PgBouncer replays TimeZone: fine, not "leaked -> BREAKS".
    expect(tz).toMatchObject({ outcome: 'tracked', breaks: false });
    expect(report.summary.connections).toBe(DEPENDENT.length);
    expect(report.warnings).toEqual([]);
  });

  test('one session state is one finding, with its connections listed, whatever each used it for first', async () => {
    const sequelize = (next: string): LabelledCase => ({
      name: `sequelize-like, then ${next}`,
      expect: [],
      run: async (connect) => {
        const c = await connect();
        try {
          await c.query("SET statement_timeout = '5s'");
          await c.query(next);
        } finally {
          await c.end();
        }
      },
    });
    const report = await watchCases([sequelize('SELECT 1'), sequelize('SELECT 2')]);
    expect(report.findings).toHaveLength(1);
    const [f] = report.findings;
    expect(f).toMatchObject({ state: 'statement_timeout', count: 2, connections: 2, evidence: 'seen' });
    expect(f!.connectionIds).toHaveLength(2);
    expect(f!.used!.sql).toBe('SELECT 1');
  });

  test('the control workload (transaction-scoped state only) gives no finding', async () => {
    const report = await watchCases(CONTROL);
    expect(report.findings).toEqual([]);
    // Not blind: the proxy saw the traffic and parsed it.
    expect(report.summary.statements).toBeGreaterThan(20);
    expect(report.summary.transactions).toBeGreaterThan(5);
    expect(report.warnings).toEqual([]);
  });

  test('precision and recall over the labelled set are both 1', async () => {
    const all = [...DEPENDENT, ...CONTROL];
    const report = await watchCases(all);
    const expected = new Set(all.flatMap((c) => c.expect));
    const got = new Set(found(report));
    const truePositives = [...got].filter((g) => expected.has(g)).length;
    const precision = got.size === 0 ? 0 : truePositives / got.size;
    const recall = truePositives / expected.size;
    console.log(
      `watch labelled workload: ${all.length} cases, ${expected.size} expected dependencies, precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`,
    );
    expect({ precision, recall }).toEqual({ precision: 1, recall: 1 });
  });
});
