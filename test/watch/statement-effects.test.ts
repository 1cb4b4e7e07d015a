/**
 * What the watch reads from single statements, through PostgreSQL's own parser: creations,
 * undos and uses with the names that match them across transactions, and nothing at all for
 * state that ends with its transaction.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { loadParser } from '../../common/sql-parser.js';
import { textEffects, type Effect } from '../../watch/statement-effects.js';
import { SessionState, type Dependency } from '../../watch/session-state.js';
import { useOfSetting } from '../../watch/setting-uses.js';

beforeAll(async () => {
  await loadParser();
});

function effects(sql: string): string[] {
  const r = textEffects(sql);
  if (!r.ok) throw new Error(r.error);
  return r.statements.flatMap((s) =>
    s.effects.map((e: Effect) => `${e.op} ${e.kind} ${e.key}${e.op === 'create' ? ` ${e.check}` : ''}`),
  );
}

describe('statement effects', () => {
  test.each([
    ['SET LOCAL search_path = a', []],
    ["SELECT set_config('app.tenant', '1', true)", []],
    ['CREATE TEMP TABLE t (i int) ON COMMIT DROP', []],
    ['SELECT pg_advisory_xact_lock(1)', []],
    ['SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', []],
    ['BEGIN', []],
  ])('transaction-scoped: %s has no effect', (sql, expected) => {
    expect(effects(sql)).toEqual(expected);
  });

  test.each([
    ['SET search_path TO "tenant_1"', ['create guc search_path session/search-path-leak']],
    ["SELECT set_config('App.Tenant', '1', false)", ['create guc app.tenant session/custom-guc-leak']],
    ['SET ROLE admin', ['create guc role session/role-leak']],
    ['SET ROLE NONE', ['undo guc role']],
    ['RESET ALL', ['undo guc *']],
    [
      'SELECT pg_try_advisory_lock(7241865325823964) AS "lockObtained"',
      ['create lock 7241865325823964 locks/advisory-session'],
    ],
    ['SELECT pg_advisory_unlock($1)', ['use lock $1', 'undo lock $1']],
    ['SELECT pg_advisory_lock_shared(1, 2)', ['create lock shared 1,2 locks/advisory-session']],
    ['INSERT INTO scratch VALUES (1)', ['create sequence ? sequences/lastval', 'use temp scratch']],
    ['SELECT * FROM pg_temp.scratch JOIN public.other USING (id)', ['use temp scratch']],
    ["SELECT currval('s')", ['use sequence s']],
    ['DECLARE c CURSOR WITH HOLD FOR SELECT 1', ['create cursor c cursors/with-hold']],
    ['CLOSE ALL', ['undo cursor *']],
    ['DEALLOCATE ALL', ['undo prepared *']],
    ['DISCARD TEMP', ['undo temp *']],
    ['UNLISTEN *', ['undo listen *']],
    ["SELECT current_setting('app.tenant')", ['use guc app.tenant']],
  ])('%s', (sql, expected) => {
    expect(effects(sql)).toEqual(expected);
  });

  test('DISCARD ALL undoes every kind, and a refused text is reported, not guessed', () => {
    expect(effects('DISCARD ALL')).toHaveLength(7);
    expect(textEffects('SELEC 1')).toMatchObject({ ok: false });
  });
});

describe('what a statement depends on, setting by setting (watch/setting-uses.ts)', () => {
  const useOf = (key: string, sql: string): string | null => {
    const r = textEffects(sql);
    if (!r.ok) throw new Error(r.error);
    const s = r.statements[0]!;
    return useOfSetting(key, s.uses, s.relies);
  };

  test.each([
    // node-pg-migrate's first statement that really resolves through search_path.
    ['search_path', 'CREATE TABLE "widgets" (id int)', 'resolves relation widgets through search_path'],
    ['search_path', 'SELECT current_schema()', 'resolves current_schema() through search_path'],
    ['search_path', 'SELECT CURRENT_SCHEMA', 'resolves CURRENT_SCHEMA through search_path'],
    ['search_path', 'SELECT * FROM information_schema.tables WHERE table_schema = $1', null],
    ['search_path', 'WITH w AS (SELECT 1) SELECT * FROM w', null],
    ['search_path', 'SELECT 1 FROM public.a JOIN b USING (id)', 'resolves relation b through search_path'],
    // A catalog resolves in pg_catalog first whatever the path: `SET search_path` then a
    // monitoring query on pg_class was reported as relying on the SET.
    ['search_path', 'SELECT count(*) FROM pg_class', null],
    [
      'search_path',
      'SELECT * FROM pg_stat_activity JOIN jobs USING (pid)',
      'resolves relation jobs through search_path',
    ],
    // A temporary relation goes to pg_temp whatever the path (issue 40); controls: the same
    // statement without TEMP, and the relation a temp table is filled from, still resolve.
    ['search_path', 'CREATE TEMP TABLE scratch (id int, note text)', null],
    ['search_path', 'CREATE TEMPORARY TABLE scratch AS SELECT 1 AS id', null],
    ['search_path', 'CREATE TABLE pg_temp.scratch (id int)', null],
    ['search_path', 'CREATE TABLE scratch (id int, note text)', 'resolves relation scratch through search_path'],
    [
      'search_path',
      'CREATE TEMP TABLE scratch AS SELECT * FROM widgets',
      'resolves relation widgets through search_path',
    ],
    ['search_path', 'SELECT * INTO TEMP scratch FROM widgets', 'resolves relation widgets through search_path'],
    ['timezone', 'SELECT now()', 'now() depends on TimeZone'],
    ['timezone', 'SELECT CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP depends on TimeZone'],
    ['timezone', "SELECT '2024-01-01 10:00'::timestamptz", '::timestamptz depends on TimeZone'],
    ['timezone', 'SELECT count(*) FROM jobs', null],
    ['datestyle', "SELECT to_char(now(), 'YYYY')", 'to_char() depends on DateStyle'],
    ['intervalstyle', "SELECT '1 day'::interval", '::interval depends on IntervalStyle'],
    ['intervalstyle', 'SELECT now()', null],
    [
      'standard_conforming_strings',
      "SELECT 'a\\b'",
      'a string literal with a backslash depends on standard_conforming_strings',
    ],
    ['standard_conforming_strings', "SELECT 'ab'", null],
    ['application_name', 'SELECT 1', null],
    ['statement_timeout', 'SELECT 1', 'runs with statement_timeout as set'],
    ['statement_timeout', 'SHOW statement_timeout', null],
  ])('%s: %s', (key, sql, expected) => {
    expect(useOf(key, sql)).toBe(expected);
  });
});

describe('a temp table the session created is not resolved through search_path (issue 40)', () => {
  /** Runs `transactions` (one text each) on one connection's state; returns what each finding used. */
  function dependencies(transactions: string[]): string[] {
    const found: Dependency[] = [];
    const state = new SessionState((d) => found.push(d));
    for (const sql of transactions) {
      const r = textEffects(sql);
      if (!r.ok) throw new Error(r.error);
      for (const s of r.statements) state.statement(s.text, s);
      state.endTransaction(false);
    }
    state.close();
    return found.map((d) => `${d.check}: ${d.used?.what ?? 'none'} (${d.used?.sql ?? ''})`);
  }

  test('CREATE TEMP TABLE after SET search_path, then the temp table named later: only the temp table', () => {
    expect(
      dependencies([
        'SET search_path TO app, public',
        'CREATE TEMP TABLE scratch (id int, note text)',
        "INSERT INTO scratch VALUES (1, 'a')",
        'SELECT count(*) FROM scratch',
      ]),
    ).toEqual(["temp/temp-table: scratch (INSERT INTO scratch VALUES (1, 'a'))"]);
  });

  test('control: a plain CREATE TABLE and its unqualified name still resolve through search_path', () => {
    expect(
      dependencies([
        'SET search_path TO app, public',
        'CREATE TABLE scratch (id int, note text)',
        'SELECT count(*) FROM scratch',
      ]),
    ).toEqual([
      'session/search-path-leak: resolves relation scratch through search_path (CREATE TABLE scratch (id int, note text))',
    ]);
  });

  test('control: once the temp table is dropped, the same name resolves through search_path again', () => {
    expect(
      dependencies([
        'SET search_path TO app, public',
        'CREATE TEMP TABLE scratch (id int)',
        'DROP TABLE scratch',
        'SELECT count(*) FROM scratch JOIN items USING (id)',
      ]),
    ).toEqual([
      'session/search-path-leak: resolves relation scratch through search_path (SELECT count(*) FROM scratch JOIN items USING (id))',
    ]);
  });

  test('a statement naming the temp table and another relation resolves the other one', () => {
    expect(
      dependencies([
        'SET search_path TO app',
        'CREATE TEMP TABLE scratch (id int)',
        'SELECT * FROM scratch JOIN items USING (id)',
      ]),
    ).toEqual([
      'session/search-path-leak: resolves relation items through search_path (SELECT * FROM scratch JOIN items USING (id))',
      'temp/temp-table: scratch (SELECT * FROM scratch JOIN items USING (id))',
    ]);
  });
});
