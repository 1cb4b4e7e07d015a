/**
 * The profiles the fixtures run keep the outcomes the lead verified against real servers for the
 * first seven checks (PgBouncer 1.18 in its three modes, pgpool-II 4.3, PostgreSQL). A change here
 * needs new evidence from a fixture run, not only a new reading of the docs.
 */
import { describe, expect, test } from 'vitest';
import { findProfile } from '../../profiles/index.js';
import type { Profile } from '../../engine/record/profile.js';
import type { Expectations } from '../../profiles/catalogue-profile.js';
import { decidedOnly } from '../../profiles/observed-on-fixture.js';

const DEDICATED = {
  'session/set-leak': 'session',
  'session/tracked-parameter': 'session',
  'session/set-local': 'scoped',
  'temp/temp-table': 'session',
  'locks/advisory-session': 'exclusive',
  'notify/listen': 'delivered',
  'prepared/sql-prepare': 'session',
};
const TRANSACTION = {
  'session/set-leak': 'leaked',
  // Was `tracked` with one named observer; a fixture run with an observer that sends no
  // application_name (PgBouncer 1.18, transaction and statement mode) showed it A's name.
  'session/tracked-parameter': 'leaked',
  'session/set-local': 'scoped',
  'temp/temp-table': 'leaked',
  'locks/advisory-session': 'shared',
  'notify/listen': 'misrouted',
  'prepared/sql-prepare': 'leaked',
};

const VERIFIED: Record<string, Record<string, string>> = {
  direct: DEDICATED,
  'pgbouncer-session': DEDICATED,
  pgpool: DEDICATED,
  'pgbouncer-transaction': TRANSACTION,
  'pgbouncer-statement': { ...TRANSACTION, 'session/set-local': 'rejected' },
};

describe.each(Object.entries(VERIFIED))('%s keeps its verified expectations', (name, verified) => {
  test('for the first seven checks', () => {
    // Read as any profile is read at run time: by a string id.
    const table: Profile['expect'] = findProfile(name).expect;
    const expect7 = Object.fromEntries(Object.keys(verified).map((id) => [id, table[id]?.outcome]));
    expect(expect7).toEqual(verified);
  });
});

describe('newer PgBouncer releases differ from 1.18 only where a default changed', () => {
  const base = findProfile('pgbouncer-transaction').expect;
  const outcomesOf = (table: Expectations) =>
    Object.fromEntries(Object.entries(table).map(([id, e]) => [id, e.outcome]));
  const outcomes = (name: string) => outcomesOf(findProfile(name).expect);
  // What the newer releases reuse: 1.18's table as written up, not a check recorded on 1.18 alone.
  const baseOutcomes = outcomesOf(decidedOnly(base));

  test('1.21: max_prepared_statements exists but is 0, so named statements still fail; empty application_name not yet fixed', () => {
    expect(outcomes('pgbouncer-1.21-transaction')).toEqual(baseOutcomes);
    expect(base['prepared/protocol-named']?.outcome).toBe('failed');
  });

  test('1.22 and 1.23: the empty application_name fix (#999) tracks application_name; default_transaction_read_only keeps the check leaked', () => {
    expect(outcomes('pgbouncer-1.22-transaction')).toEqual(baseOutcomes);
    const parameters = findProfile('pgbouncer-1.22-transaction').expect['session/tracked-parameter']?.parameters;
    expect(parameters).toMatchObject({ application_name: 'tracked', default_transaction_read_only: 'leaked' });
    expect(base['session/tracked-parameter']?.parameters).toMatchObject({ application_name: 'leaked' });
  });

  test('1.24 and 1.25: max_prepared_statements defaults to 200, so named statements work', () => {
    const want = { ...baseOutcomes, 'prepared/protocol-named': 'works' };
    expect(outcomes('pgbouncer-1.24-transaction')).toEqual(want);
    // The observed 1.25.2 profile and the documented 1.24 one agree check by check.
    expect(outcomes('pgbouncer-1.25-transaction')).toEqual(want);
    expect(outcomes('pgbouncer-1.25-transaction-no-prepared')).toEqual({
      ...want,
      'prepared/protocol-named': 'failed',
    });
  });

  test('1.26: search_path is tracked by default, which depends on the server, so it is not asserted', () => {
    const { 'session/search-path-leak': _dropped, ...rest } = outcomes('pgbouncer-1.24-transaction');
    expect(outcomes('pgbouncer-1.26-transaction')).toEqual(rest);
  });
});
