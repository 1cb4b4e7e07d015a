/**
 * The checks' audit claims (engine/record/audit-claims.ts) cover the classifiers' whole vocabulary:
 * every statement kind, built-in function and settings pattern the audit and watch can
 * recognise is claimed by exactly one check, so each recognised thing has one check to name.
 * The controls feed the validation catalogues that break that rule, and it must refuse them.
 */
import { describe, expect, test } from 'vitest';
import {
  CLEANUP_FUNCTIONS,
  CLEANUP_STATEMENTS,
  SETUP_FUNCTIONS,
  STATE_FUNCTIONS,
  STATE_STATEMENTS,
  claimIndex,
  claimProblems,
  type AuditClaims,
  type ClaimingCheck,
} from '../../engine/record/audit-claims.js';
import { CATALOGUE, CLAIMS } from '../../suites/catalogue.js';

/** The catalogue as the claims see it, copied so a control can change one check's claims. */
function catalogueCopy(): ClaimingCheck[] {
  return CATALOGUE.map((c) => ({ id: c.id, ...(c.audit ? { audit: { claims: c.audit.claims } } : {}) }));
}

/** A copy in which check `id` claims `claims` instead of its own. */
function withClaims(id: string, claims: AuditClaims): ClaimingCheck[] {
  return catalogueCopy().map((c) => (c.id === id ? { id, audit: { claims } } : c));
}

function claimsOf(id: string): AuditClaims {
  const check = CATALOGUE.find((c) => c.id === id);
  if (!check?.audit) throw new Error(`${id} has no audit hint`);
  return check.audit.claims;
}

/** Owners of each vocabulary item, counted straight from the check files (not by claimProblems). */
function owners(list: (claims: AuditClaims) => readonly string[] | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const check of CATALOGUE) {
    for (const item of (check.audit && list(check.audit.claims)) ?? [])
      out.set(item, [...(out.get(item) ?? []), check.id]);
  }
  return out;
}

describe('audit claims of the catalogue', () => {
  test('the catalogue has no claim problem', () => {
    expect(claimProblems(catalogueCopy())).toEqual([]);
  });

  test('every statement kind is claimed by exactly one check, in its own half', () => {
    const state = owners((c) => c.statements?.state);
    const cleanup = owners((c) => c.statements?.cleanup);
    for (const kind of STATE_STATEMENTS) expect(state.get(kind), kind).toHaveLength(1);
    for (const kind of CLEANUP_STATEMENTS) expect(cleanup.get(kind), kind).toHaveLength(1);
    expect(state.size + cleanup.size).toBe(STATE_STATEMENTS.length + CLEANUP_STATEMENTS.length);
  });

  test('every built-in function is claimed by exactly one check, in its own half', () => {
    const halves = [
      [STATE_FUNCTIONS, owners((c) => c.functions?.state)],
      [SETUP_FUNCTIONS, owners((c) => c.functions?.setup)],
      [CLEANUP_FUNCTIONS, owners((c) => c.functions?.cleanup)],
    ] as const;
    for (const [vocabulary, claimed] of halves) {
      for (const name of vocabulary) expect(claimed.get(name), name).toHaveLength(1);
      expect(claimed.size).toBe(vocabulary.length);
    }
  });

  test('each setting name has at most one owner; the dotted pattern and the catch-all exactly one', () => {
    for (const [name, ids] of owners((c) => c.settings?.names)) expect(ids, name).toHaveLength(1);
    expect(CATALOGUE.filter((c) => c.audit?.claims.settings?.dotted)).toHaveLength(1);
    expect(CATALOGUE.filter((c) => c.audit?.claims.settings?.anyOther)).toHaveLength(1);
  });

  test('settings keep their precedence: exact names, then dotted names, then the catch-all', () => {
    expect(CLAIMS.checkOfSetting('role')).toBe('session/role-leak');
    expect(CLAIMS.checkOfSetting('session_authorization')).toBe('session/role-leak');
    expect(CLAIMS.checkOfSetting('search_path')).toBe('session/search-path-leak');
    expect(CLAIMS.checkOfSetting('app.tenant_id')).toBe('session/custom-guc-leak');
    expect(CLAIMS.checkOfSetting('application_name')).toBe('session/tracked-parameter');
    expect(CLAIMS.checkOfSetting('TimeZone')).toBe('session/tracked-parameter');
    expect(CLAIMS.checkOfSetting('statement_timeout')).toBe('session/set-leak');
    expect(CLAIMS.checkOfSetting(null)).toBe('session/set-leak');
  });

  test('an exact name beats the dotted pattern', () => {
    const claims = withClaims('session/search-path-leak', { settings: { names: ['search_path', 'app.special'] } });
    const index = claimIndex(claims);
    expect(index.checkOfSetting('App.Special')).toBe('session/search-path-leak');
    expect(index.checkOfSetting('app.other')).toBe('session/custom-guc-leak');
  });

  test('statements and functions go to their claiming check, with their half', () => {
    expect(CLAIMS.checkOfStatement('LISTEN')).toBe('notify/listen');
    expect(CLAIMS.checkOfStatement('SET ROLE NONE')).toBe('session/role-leak');
    expect(CLAIMS.checkOfStatement('RESET ALL')).toBe('session/set-leak');
    expect(CLAIMS.checkOfStatement('protocol named statement')).toBe('prepared/protocol-named');
    expect(CLAIMS.functionClaim('pg_advisory_unlock_all')).toEqual({
      check: 'locks/advisory-session',
      half: 'cleanup',
    });
    expect(CLAIMS.functionClaim('nextval')).toEqual({ check: 'sequences/lastval', half: 'setup' });
    expect(CLAIMS.functionClaim('pg_advisory_xact_lock')).toBeNull();
  });
});

describe('controls: the validation refuses a catalogue whose claims are doubtful', () => {
  test('two checks claiming LISTEN', () => {
    const claims = withClaims('cursors/with-hold', { statements: { state: ['DECLARE WITH HOLD', 'LISTEN'] } });
    expect(claimProblems(claims)).toEqual([
      'statement kind "LISTEN" is claimed by more than one check: notify/listen, cursors/with-hold',
    ]);
    expect(() => claimIndex(claims)).toThrow(/inconsistent:\n- statement kind "LISTEN" is claimed by more than one/);
  });

  test('a statement kind nobody claims', () => {
    const claims = withClaims('temp/temp-table', { statements: { state: ['CREATE TEMP'] } });
    expect(claimProblems(claims)).toEqual(['statement kind "DISCARD TEMP" is claimed by no check']);
  });

  test('a function claimed twice, and one claimed by nobody', () => {
    const lastval = claimsOf('sequences/lastval');
    const claims = withClaims('sequences/lastval', {
      ...lastval,
      functions: { state: ['currval', 'pg_advisory_lock'], setup: ['nextval', 'setval'] },
    });
    expect(claimProblems(claims)).toEqual([
      'function pg_advisory_lock() is claimed by more than one check: locks/advisory-session, sequences/lastval',
      'function lastval() is claimed by no check',
    ]);
  });

  test('a setting claimed twice, a second catch-all, no dotted pattern', () => {
    const claims = withClaims('session/custom-guc-leak', { settings: { names: ['search_path'], anyOther: true } });
    expect(claimProblems(claims)).toEqual([
      'setting "search_path" is claimed by more than one check: session/search-path-leak, session/custom-guc-leak',
      'the dotted settings pattern is claimed by no check',
      'the catch-all for any other setting is claimed by more than one check: session/set-leak, session/custom-guc-leak',
    ]);
  });

  test('a setting name not in lower case', () => {
    const claims = withClaims('session/search-path-leak', { settings: { names: ['Search_Path'] } });
    expect(claimProblems(claims)).toContain(
      'session/search-path-leak claims setting "Search_Path": names are lower case',
    );
  });

  test('a claim in the wrong half or outside the vocabulary (as untyped data would bring)', () => {
    const claims = withClaims('notify/listen', {
      statements: { state: ['LISTEN', 'UNLISTEN', 'NOTIFY'] } as unknown as AuditClaims['statements'],
    });
    const problems = claimProblems(claims);
    expect(problems).toContain('notify/listen claims "UNLISTEN" as state, but it is a cleanup statement');
    expect(problems).toContain('notify/listen claims statement kind "NOTIFY", which is not in the vocabulary');
  });

  test('an audit hint that claims nothing', () => {
    const copy = [...catalogueCopy(), { id: 'extra/nothing', audit: { claims: {} } }];
    expect(claimProblems(copy)).toEqual([
      'extra/nothing has an audit hint that claims nothing: no SQL would ever name it',
    ]);
  });
});
