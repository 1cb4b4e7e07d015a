/**
 * The classifier against a corpus: every finding the audit promises, and every look-alike it
 * must leave alone (text in strings, comments, dollar-quoted bodies, identifiers, the
 * transaction-scoped variants). Each row is parsed by the real PostgreSQL parser.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { AuditCheckId } from '../../audit/audit-types.js';
import { loadParser } from '../../common/sql-parser.js';
import { StatementClassifier } from '../../audit/statement-classifier.js';

beforeAll(async () => {
  await loadParser();
});

/** The hazards of the single statement in `sql`. */
function hazardsOf(sql: string): Array<{ check: AuditCheckId; cleanup?: boolean }> {
  const result = new StatementClassifier().classify(sql);
  if (!result.ok) throw new Error(`corpus statement does not parse: ${sql}: ${result.error}`);
  expect(result.statements, sql).toBe(1);
  return result.notable[0]?.hazards ?? [];
}

/** The primary check of the single statement in `sql`, or null when it is not a finding. */
function primaryCheck(sql: string): AuditCheckId | null {
  return hazardsOf(sql).find((h) => h.cleanup !== true)?.check ?? null;
}

const FINDINGS: Array<[string, AuditCheckId]> = [
  ["SET statement_timeout = '5s'", 'session/set-leak'],
  ['SET SESSION statement_timeout TO 1000', 'session/set-leak'],
  ['SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY', 'session/set-leak'],
  ['SET search_path TO app, public', 'session/search-path-leak'],
  ["SET SCHEMA 'app'", 'session/search-path-leak'],
  ["SELECT set_config('search_path', 'app', false)", 'session/search-path-leak'],
  ["SET app.tenant_id = '42'", 'session/custom-guc-leak'],
  ['SET "my.setting" TO \'x\'', 'session/custom-guc-leak'],
  ["SELECT set_config('app.tenant_id', '42', false)", 'session/custom-guc-leak'],
  ["SELECT pg_catalog.set_config('app.user', $1, 'off')", 'session/custom-guc-leak'],
  ["SELECT set_config(setting_name => 'app.x', new_value => 'y', is_local => false)", 'session/custom-guc-leak'],
  ['SET ROLE app_admin', 'session/role-leak'],
  ['SET SESSION AUTHORIZATION alice', 'session/role-leak'],
  ["SELECT set_config('role', 'admin', false)", 'session/role-leak'],
  ["SET application_name = 'worker'", 'session/tracked-parameter'],
  ["SET TIME ZONE 'UTC'", 'session/tracked-parameter'],
  ['LISTEN jobs', 'notify/listen'],
  ['LISTEN "listen"', 'notify/listen'],
  ['SELECT pg_advisory_lock(42)', 'locks/advisory-session'],
  ['SELECT pg_try_advisory_lock(1, 2)', 'locks/advisory-session'],
  ['SELECT pg_advisory_lock_shared(7)', 'locks/advisory-session'],
  ['SELECT pg_try_advisory_lock_shared(7)', 'locks/advisory-session'],
  ['SELECT id FROM jobs WHERE pg_try_advisory_lock(id) LIMIT 1', 'locks/advisory-session'],
  ['WITH l AS (SELECT pg_advisory_lock(1)) SELECT * FROM l', 'locks/advisory-session'],
  ['SELECT * FROM t WHERE x IN (SELECT pg_advisory_lock(id) FROM u)', 'locks/advisory-session'],
  ['UPDATE t SET x = 1 WHERE pg_try_advisory_lock(t.id)', 'locks/advisory-session'],
  ['EXPLAIN ANALYZE SELECT pg_advisory_lock(1)', 'locks/advisory-session'],
  ["INSERT INTO t VALUES (currval('t_id_seq'))", 'sequences/lastval'],
  ["SELECT nextval('a'), currval('b')", 'sequences/lastval'],
  ['SELECT lastval()', 'sequences/lastval'],
  ['CREATE TEMP TABLE scratch (id int)', 'temp/temp-table'],
  ['CREATE TEMPORARY TABLE s2 (id int) ON COMMIT DELETE ROWS', 'temp/temp-table'],
  ['CREATE TEMP TABLE s3 (id int) ON COMMIT PRESERVE ROWS', 'temp/temp-table'],
  ['CREATE TEMP TABLE s4 AS SELECT 1', 'temp/temp-table'],
  ['SELECT * INTO TEMP s5 FROM t', 'temp/temp-table'],
  ['CREATE TABLE pg_temp.s6 (id int)', 'temp/temp-table'],
  ['DECLARE c CURSOR WITH HOLD FOR SELECT 1', 'cursors/with-hold'],
  ['PREPARE q(int) AS SELECT $1', 'prepared/sql-prepare'],
  ['EXECUTE q(1)', 'prepared/sql-prepare'],
  ['DO $$ BEGIN SET search_path = app; END $$', 'session/search-path-leak'],
  ['DO $$ BEGIN PERFORM pg_advisory_lock(1); END $$', 'locks/advisory-session'],
  ['DO $$ DECLARE v bigint; BEGIN v := lastval(); END $$', 'sequences/lastval'],
  ["DO $$ DECLARE v text; BEGIN v := 'é:=' || currval('s'); END $$", 'sequences/lastval'],
  ['DO $$ BEGIN IF pg_try_advisory_lock(1) THEN NULL; END IF; END $$', 'locks/advisory-session'],
  ["DO $$ BEGIN EXECUTE 'LISTEN jobs'; END $$", 'notify/listen'],
  ['DO LANGUAGE plpgsql $body$ BEGIN CREATE TEMP TABLE x (i int); END $body$', 'temp/temp-table'],
];

/** Statements that undo session state: the cleanup half of a finding, never one themselves. */
const CLEANUPS: Array<[string, AuditCheckId]> = [
  ['RESET statement_timeout', 'session/set-leak'],
  ['RESET ALL', 'session/set-leak'],
  ['SET work_mem TO DEFAULT', 'session/set-leak'],
  ['RESET search_path', 'session/search-path-leak'],
  ['RESET ROLE', 'session/role-leak'],
  ['SET ROLE NONE', 'session/role-leak'],
  ['SET SESSION AUTHORIZATION DEFAULT', 'session/role-leak'],
  ['RESET app.tenant_id', 'session/custom-guc-leak'],
  ['SELECT pg_advisory_unlock(42)', 'locks/advisory-session'],
  ['SELECT pg_advisory_unlock_shared(7)', 'locks/advisory-session'],
  ['SELECT pg_advisory_unlock_all()', 'locks/advisory-session'],
  ['DEALLOCATE q', 'prepared/sql-prepare'],
  ['DEALLOCATE ALL', 'prepared/sql-prepare'],
  ['UNLISTEN jobs', 'notify/listen'],
  ['UNLISTEN *', 'notify/listen'],
  ['DISCARD TEMP', 'temp/temp-table'],
  ['DISCARD SEQUENCES', 'sequences/lastval'],
  ['DISCARD ALL', 'session/role-leak'],
];

const LOOK_ALIKES: Array<[string, string]> = [
  ["SELECT 'SET search_path = app'", 'SET inside a string literal'],
  ['SELECT $q$SET ROLE admin; LISTEN x$q$', 'SET inside a dollar-quoted string'],
  ["SELECT E'\\nLISTEN x'", 'LISTEN inside an escape string'],
  ['SELECT 1 -- SET statement_timeout = 0', 'SET in a line comment'],
  ['/* LISTEN jobs; SELECT pg_advisory_lock(1) */ SELECT 1', 'LISTEN and a lock in a block comment'],
  [
    'CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN SET search_path = app; PERFORM pg_advisory_lock(1); END $$',
    'SET in the dollar-quoted body of CREATE FUNCTION',
  ],
  ["CREATE FUNCTION g() RETURNS int LANGUAGE sql SET search_path = app AS 'SELECT 1'", "a function's own SET clause"],
  ['ALTER FUNCTION g() SET search_path = app', "ALTER FUNCTION's SET clause"],
  ['SELECT listen FROM "listen" WHERE listen = \'LISTEN\'', 'identifiers named listen'],
  ['SELECT "pg_advisory_lock" FROM locks', 'a column named like the lock function'],
  ["SET LOCAL statement_timeout = '1s'", 'SET LOCAL'],
  ['SET LOCAL search_path = app', 'SET LOCAL search_path'],
  ['SET LOCAL ROLE admin', 'SET LOCAL ROLE'],
  ["SET LOCAL app.tenant_id = '1'", 'SET LOCAL of a custom setting'],
  ["SELECT set_config('app.tenant_id', '42', true)", 'set_config(..., true)'],
  ["SELECT set_config('search_path', 'app', 'on'::boolean)", 'set_config with a cast true'],
  ['SELECT pg_advisory_xact_lock(1)', 'transaction advisory lock'],
  ['SELECT pg_try_advisory_xact_lock(1)', 'try transaction advisory lock'],
  ['SELECT pg_advisory_xact_lock_shared(1)', 'shared transaction advisory lock'],
  ['SELECT pg_try_advisory_xact_lock_shared(1)', 'try shared transaction advisory lock'],
  ['CREATE TEMP TABLE t (i int) ON COMMIT DROP', 'ON COMMIT DROP'],
  ['CREATE TEMP TABLE t2 ON COMMIT DROP AS SELECT 1', 'CREATE TEMP TABLE AS with ON COMMIT DROP'],
  ["NOTIFY jobs, 'x'", 'NOTIFY'],
  ["SELECT pg_notify('jobs', 'x')", 'pg_notify'],
  ['DECLARE c CURSOR FOR SELECT 1', 'cursor without hold'],
  ['DECLARE c CURSOR WITHOUT HOLD FOR SELECT 1', 'cursor WITHOUT HOLD'],
  ['SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'SET TRANSACTION'],
  ["SELECT nextval('s')", 'nextval'],
  ["SELECT nextval('s'), currval('s')", 'currval of what the same statement set up'],
  ["INSERT INTO t (id, ref) VALUES (nextval('s'), lastval())", 'lastval after nextval in one statement'],
  ['EXPLAIN SELECT pg_advisory_lock(1)', 'EXPLAIN without ANALYZE does not run it'],
  ['CREATE VIEW v AS SELECT lastval()', 'a view definition runs nothing'],
  ["CREATE TABLE t3 (id int DEFAULT currval('s'))", 'a column default runs nothing'],
  ['SELECT myschema.pg_advisory_lock(1)', "a user's function with the same name"],
  ['ALTER ROLE app SET search_path = app', 'per-role default'],
  ["ALTER DATABASE d SET statement_timeout = '5s'", 'per-database default'],
  [
    'DO $$ BEGIN SET LOCAL search_path = app; PERFORM pg_advisory_xact_lock(1); END $$',
    'transaction-scoped state in a DO block',
  ],
  ["DO $$ BEGIN RAISE NOTICE 'SET search_path = app'; END $$", 'SET in a string inside a DO block'],
  ["COMMENT ON TABLE t IS 'LISTEN here'", 'LISTEN in a comment string'],
];

describe('statements that rely on session state are found, with the most specific check', () => {
  test.each(FINDINGS)('%s -> %s', (sql, check) => {
    expect(primaryCheck(sql)).toBe(check);
  });
});

describe('cleanup statements are the other half of a finding, not findings', () => {
  test.each(CLEANUPS)('%s undoes %s', (sql, check) => {
    expect(primaryCheck(sql)).toBeNull();
    expect(
      hazardsOf(sql)
        .filter((h) => h.cleanup === true)
        .map((h) => h.check),
    ).toContain(check);
  });

  test('a statement that both unlocks and locks still leaves a lock behind: a finding', () => {
    expect(primaryCheck('SELECT pg_advisory_unlock(1), pg_advisory_lock(2)')).toBe('locks/advisory-session');
  });

  test('DISCARD PLANS undoes no state the audit tracks', () => {
    expect(hazardsOf('DISCARD PLANS')).toEqual([]);
  });
});

describe('look-alikes are not findings', () => {
  test.each(LOOK_ALIKES)('%s (%s)', (sql) => {
    expect(primaryCheck(sql)).toBeNull();
  });
});

describe('one finding per statement', () => {
  test('a statement with two hazards names the more important one and lists the other', () => {
    const result = new StatementClassifier().classify("SELECT pg_advisory_lock(1), set_config('app.x', '1', false)");
    expect(result.ok && result.notable[0]!.hazards.map((h) => h.check)).toEqual([
      'session/custom-guc-leak',
      'locks/advisory-session',
    ]);
  });

  test("the statement's own kind comes first: PREPARE of a lock call is an SQL PREPARE finding", () => {
    const result = new StatementClassifier().classify('PREPARE p AS SELECT pg_advisory_lock(1)');
    expect(result.ok && result.notable[0]!.hazards.map((h) => h.check)).toEqual([
      'prepared/sql-prepare',
      'locks/advisory-session',
    ]);
  });

  test('several statements in one text are classified separately, at their own offsets', () => {
    const sql = "SET LOCAL x.y = 1; SELECT 'é'; LISTEN a";
    const result = new StatementClassifier().classify(sql);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.statements).toBe(3);
    expect(result.notable).toHaveLength(1);
    expect(result.notable[0]!.text).toBe('LISTEN a');
    expect(sql.slice(result.notable[0]!.offset)).toBe('LISTEN a');
  });

  test('set_config with arguments the parser cannot see (pg_stat_statements form) is a finding marked uncertain', () => {
    const result = new StatementClassifier().classify('SELECT set_config($1, $2, $3)');
    expect(result.ok && result.notable[0]!.hazards[0]).toMatchObject({ check: 'session/set-leak', certain: false });
  });

  test('DO blocks keep their own text as the grouping key (the normalizer would make every body $1)', () => {
    const c = new StatementClassifier();
    const a = c.classify('DO $$ BEGIN SET search_path = a; END $$');
    const b = c.classify('DO $$ BEGIN SET search_path = b; END $$');
    expect(a.ok && b.ok && a.notable[0]!.normalized !== b.notable[0]!.normalized).toBe(true);
  });

  test('findings are grouped by normalized text: different constants, one key', () => {
    const c = new StatementClassifier();
    const a = c.classify('SELECT pg_advisory_lock(1)');
    const b = c.classify('SELECT pg_advisory_lock(2)');
    expect(a.ok && b.ok && a.notable[0]!.normalized === b.notable[0]!.normalized).toBe(true);
  });
});

describe('what cannot be analysed is reported, not dropped', () => {
  test('a statement that does not parse gives an error with its position', () => {
    const result = new StatementClassifier().classify('SELEC 1');
    expect(result).toMatchObject({ ok: false, position: 0 });
    expect(!result.ok && result.error).toContain('syntax error');
  });

  test('a DO block whose PL/pgSQL body does not compile is a problem', () => {
    const result = new StatementClassifier().classify('DO $$ BEGIN SELEC 1; END $$');
    expect(result.ok && result.notable[0]!.problem).toMatch(/PL\/pgSQL body does not compile/);
  });

  test('a DO block in another language is reported as not analysed', () => {
    const result = new StatementClassifier().classify("DO LANGUAGE plpython3u 'import os'");
    expect(result.ok && result.notable[0]!.problem).toMatch(/plpython3u: body not analysed/);
  });
});
