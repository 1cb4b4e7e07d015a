/**
 * The visit every backend gets after each check (engine/sweep/visit-sql.ts), held to two things.
 *
 * Its size: the tidy's visitor holds with one message only where that message may wait in a
 * pooler's queue (QUEUED_MESSAGE_MAX_BYTES), and otherwise pays a round trip more per check.
 * The visit grew past the bound once (4.4 KB with lock_timeout's marker: red before) and cost
 * 26 round trips a run at a distance; the margin here makes the next marker say so at once.
 *
 * What it finds and removes, against a real PostgreSQL: every kind of state a check may plant
 * is counted by the inspection and gone after the cleanup, as an independent look confirms,
 * while another run's state on the same backend is neither counted nor touched (the control:
 * a cleanup that removed everything would pass the first half).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LOCK_NAMESPACE, ROLE_MARKER_SETTING, markersFor } from '../../engine/record/markers.js';
import { QUEUED_MESSAGE_MAX_BYTES, oneMessageTakeBytes } from '../../engine/steering/holders.js';
import { visitStatements } from '../../engine/sweep/sweep.js';
import { LEFTOVER_COLUMNS, inspectionSql } from '../../engine/sweep/visit-sql.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { cleanupSql, observedParameters, setSql } from '../../suites/session/tracked-parameters.js';

/** Room left for the next marker: about two more inspection columns and their cleanups. */
const MARGIN_BYTES = 256;

describe("the tidy's visit of one check fits a queued message", () => {
  test.each(CATALOGUE.map((c) => c.id))('%s', (id) => {
    // Run ids are 8 hex digits (markers.newRunId); the numbers in the SQL vary with them.
    for (const runId of ['00000000', 'ffffffff', 'a1b2c3d4']) {
      expect(oneMessageTakeBytes(visitStatements(runId, [id]))).toBeLessThanOrEqual(
        QUEUED_MESSAGE_MAX_BYTES - MARGIN_BYTES,
      );
    }
  });

  test('control: the final sweep of the whole catalogue does not (its takes split instead)', () => {
    const all = CATALOGUE.map((c) => c.id);
    expect(oneMessageTakeBytes(visitStatements('a1b2c3d4', all))).toBeGreaterThan(QUEUED_MESSAGE_MAX_BYTES);
  });
});

const RUN = 'c0ffee17';
const OTHER_RUN = 'c0ffee18';
const CHECK = 'session/set-leak';
const READER = 'visit_sql_reader';
const TRACKED = 'session/tracked-parameter';

describe('the visit on a backend carrying every kind of marker (PostgreSQL, as the superuser)', () => {
  let pgFixture: PostgresFixture;
  let c: pg.Client;
  beforeAll(async () => {
    pgFixture = await startPostgres();
    // The superuser, so that a setting pg_settings lists and no column names can carry a marker.
    c = new pg.Client({ host: pgFixture.socketDir, port: pgFixture.port, user: 'postgres', database: 'postgres' });
    c.on('error', () => undefined);
    await c.connect();
    // A role to switch to (in this test's own cluster) that may not drop the superuser's
    // tables, so the cleanup must undo the switch first, and still sees every setting.
    await c.query(`CREATE ROLE ${READER} IN ROLE pg_read_all_settings`);
  });
  afterAll(async () => {
    await c?.end().catch(() => undefined);
    await pgFixture?.stop();
  });

  const settings = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'];
  const named = ['application_name', 'search_path', 'dynamic_library_path', 'app.tenant_id', ROLE_MARKER_SETTING];
  /** Looked at without the code under test. */
  async function look(): Promise<Record<string, unknown>> {
    const one = async (sql: string): Promise<unknown> => Object.values((await c.query(sql)).rows[0] ?? {})[0];
    const view: Record<string, unknown> = {
      user: await one('SELECT current_user'),
      locks: await one(`SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`),
      rels: await one(`SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relpersistence = 't'`),
      listens: await one(`SELECT string_agg(c, ',' ORDER BY c) FROM pg_listening_channels() AS c`),
      prepared: await one(`SELECT string_agg(name, ',' ORDER BY name) FROM pg_prepared_statements`),
      cursors: await one(`SELECT string_agg(name, ',' ORDER BY name) FROM pg_cursors`),
    };
    for (const s of [...settings, ...named]) view[s] = await one(`SELECT current_setting('${s}', true)`);
    return view;
  }

  test('counts each kind, removes all of it, and leaves another run alone', async () => {
    const m = markersFor(RUN, CHECK);
    const other = markersFor(OTHER_RUN, CHECK);
    // Another run's state first: the same kinds, which must stay.
    await c.query(
      `SELECT pg_advisory_lock(${LOCK_NAMESPACE}, ${other.lockKey}); LISTEN ${other.channel}; PREPARE ${other.preparedName} AS SELECT 1; CREATE TEMP TABLE ${other.tempTable} (x int)`,
    );
    const before = await look();
    await c.query(
      [
        // Re-entrant and shared: every level must go.
        `SELECT pg_advisory_lock(${LOCK_NAMESPACE}, ${m.lockKey}), pg_advisory_lock(${LOCK_NAMESPACE}, ${m.lockKey}), pg_advisory_lock_shared(${LOCK_NAMESPACE}, ${m.lockKey2})`,
        // A serial's sequence, owned by its table, and a table using a sequence it does not own.
        `CREATE TEMP SEQUENCE ${m.sequenceName}_s`,
        `CREATE TEMP TABLE ${m.tempTable} (id serial, n int DEFAULT nextval('${m.sequenceName}_s'))`,
        `LISTEN ${m.channel}`,
        `PREPARE ${m.preparedName} AS SELECT 2`,
        `BEGIN`,
        `DECLARE ${m.cursorName} CURSOR WITH HOLD FOR SELECT 3`,
        `COMMIT`,
        `SET statement_timeout = '${m.statementTimeout}'`,
        `SET lock_timeout = '${m.lockTimeout}'`,
        `SET idle_in_transaction_session_timeout = '${m.statementTimeout}'`,
        `SET application_name = '${m.tag}'`,
        `SET app.tenant_id = '${m.tag}'`,
        `SET search_path = public, ${m.schemaName}`,
        `SET dynamic_library_path = '$libdir:/nowhere/${m.schemaName}'`,
        // Last: the role switch the cleanup must undo first, for the drops to be allowed.
        `SET ROLE ${READER}`,
        `SET ${ROLE_MARKER_SETTING} = '${m.tag}'`,
      ].join('; '),
    );
    expect((await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u).toBe(READER);

    const [inspection, cleanup] = visitStatements(RUN, [CHECK]);
    const found = (await c.query(inspection)).rows[0] as Record<string, number>;
    // Locks: one row per key and mode. Temp relations: both sequences and the table.
    expect(Object.fromEntries(LEFTOVER_COLUMNS.map((k) => [k, found[k]]))).toEqual({
      locks: 2,
      temp_tables: 3,
      listens: 1,
      prepared: 1,
      cursors: 1,
      timeout_marker: 1,
      app_marker: 1,
      guc_marker: 1,
      search_path_marker: 1,
      role_marker: 1,
      other_settings: 1,
    });

    await c.query(cleanup!);
    const after = (await c.query(inspection)).rows[0] as Record<string, number>;
    for (const k of LEFTOVER_COLUMNS) expect(after[k], k).toBe(0);
    // The independent look: back to what it was before this run planted anything, the other
    // run's lock, channel, statement and table included ('' and null: a custom setting RESET
    // is empty once it was ever set, absent before).
    const now = await look();
    expect({ ...now, 'app.tenant_id': now['app.tenant_id'] || null, [ROLE_MARKER_SETTING]: null }).toEqual({
      ...before,
      'app.tenant_id': before['app.tenant_id'] || null,
      [ROLE_MARKER_SETTING]: null,
    });
    expect(now[ROLE_MARKER_SETTING] || null).toBeNull();
    expect(now.locks).toBe(1);
  });

  test("session/tracked-parameter's read-only and identity switches: its own cleanup and the sweep undo them, another run's stay", async () => {
    const params = observedParameters({ serverVersionNum: pgFixture.version * 10000 });
    const m = markersFor(RUN, TRACKED);
    const other = markersFor(OTHER_RUN, TRACKED);
    const state = async (): Promise<Record<string, unknown>> =>
      (
        await c.query(
          `SELECT current_user AS u, current_setting('default_transaction_read_only') AS ro, current_setting('standard_conforming_strings') AS scs, current_setting('${ROLE_MARKER_SETTING}', true) AS marker`,
        )
      ).rows[0] as Record<string, unknown>;
    // The check's own SETs, as A sends them, then its own cleanup in the same session (which
    // then runs as pg_monitor, with standard_conforming_strings off).
    await c.query(setSql(params, m.tag));
    expect(await state()).toMatchObject({ u: 'pg_monitor', ro: 'on', scs: 'off', marker: m.tag });
    await c.query(cleanupBlock(cleanupSql(params, m.tag)));
    expect(await state()).toMatchObject({ u: 'postgres', ro: 'off', scs: 'on', marker: '' });
    // Its cleanup missed (the observer never reached the backend): the sweep's visit resets
    // what carries this run's marker...
    await c.query(setSql(params, m.tag));
    const [inspection, cleanup] = visitStatements(RUN, [TRACKED]);
    expect(((await c.query(inspection)).rows[0] as Record<string, number>).role_marker).toBe(1);
    await c.query(cleanup!);
    expect(await state()).toMatchObject({ u: 'postgres', ro: 'off', marker: '' });
    // ...and nothing of another run's (the control: a sweep that reset every read-only switch).
    await c.query(setSql(params, other.tag));
    await c.query(cleanup!);
    expect(await state()).toMatchObject({ u: 'pg_monitor', ro: 'on', marker: other.tag });
    await c.query(cleanupBlock(cleanupSql(params, other.tag)));
    expect(await state()).toMatchObject({ u: 'postgres', ro: 'off' });
  });

  test('the inspection of no check is valid SQL (a list of no lock keys)', async () => {
    const r = (await c.query(inspectionSql(RUN, []))).rows[0] as Record<string, number>;
    expect(r.locks).toBe(0);
  });
});
