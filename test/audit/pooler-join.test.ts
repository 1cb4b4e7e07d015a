/**
 * Joining findings with what a pooler does (`--report`), the exit codes that gate a migration,
 * and the three renderings (terminal with and without colour, JSON, Markdown).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import type { CheckResult, Report } from '../../engine/types.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('join');
let app: string;

const APP_SQL = `SET statement_timeout = '5s';
SELECT pg_advisory_lock(1);
LISTEN jobs;
CREATE TEMP TABLE t (i int);
SELECT lastval();
SELEC broken;
`;

function check(id: string, outcome: string | null, verdict: CheckResult['verdict']): CheckResult {
  return {
    id,
    title: id,
    severity: 'correctness',
    outcome,
    expected: null,
    expectedRef: null,
    verdict,
    reason: '',
    facts: {},
    evidence: '',
    advice: null,
    steps: [],
    durationMs: 1,
    statements: 1,
    cleanup: { ok: true, detail: '' },
  };
}

/**
 * The parts of the engine's report the audit reads (its `checks` and `target`), typed with the
 * engine's own types so a change to them breaks this test's build.
 */
function report(checks: CheckResult[]): Pick<Report, 'schemaVersion' | 'checks' | 'target'> {
  return {
    schemaVersion: 1,
    target: { host: '127.0.0.1', port: 6432, user: 'app', database: 'app', ssl: 'disable' },
    checks,
  };
}

async function writeReport(name: string, checks: CheckResult[]): Promise<string> {
  const path = dir.file(name);
  await writeFile(path, JSON.stringify(report(checks)));
  return path;
}

beforeAll(async () => {
  app = dir.file('app.sql');
  await writeFile(app, APP_SQL);
});

describe('--report', () => {
  test('each finding says what this pooler does; one that breaks makes the exit code 1', async () => {
    const path = await writeReport('pgbouncer.json', [
      check('session/set-leak', 'leaked', 'fail'),
      check('locks/advisory-session', 'exclusive', 'pass'),
      check('notify/listen', null, 'inconclusive'),
      check('temp/temp-table', 'session', 'pass'),
    ]);
    const json = dir.file('joined.json');
    const run = await runAudit(['--sql', app, '--report', path, '--json', json]);
    expect(run.code).toBe(1);
    const audit = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(audit.pooler).toMatchObject({ basis: 'report', name: `${path} (app@127.0.0.1:6432/app)` });
    const joined = Object.fromEntries(audit.findings.map((f) => [f.check, [f.outcome, f.breaks]]));
    expect(joined).toEqual({
      'session/set-leak': ['leaked', true],
      'locks/advisory-session': ['exclusive', false],
      'notify/listen': [null, 'unknown'],
      'temp/temp-table': ['session', false],
      'sequences/lastval': [null, 'unknown'],
    });
    expect(audit.summary).toMatchObject({ findings: 5, breaking: 1, breakingCount: 1, unparsed: 1 });
    expect(audit.warnings).toContain("sequences/lastval is not in the pooler's results: what it does there is unknown");
    // The contract of the findings array.
    for (const f of audit.findings) {
      expect(Object.keys(f)).toEqual(
        expect.arrayContaining(['check', 'statement', 'source', 'count', 'breaks', 'outcome', 'advice']),
      );
    }
    expect(audit.unparsed).toMatchObject({ count: 1, distinct: 1 });
    expect(run.stdout).toMatch(/session\/set-leak.*\n\s+on this pooler: leaked -> BREAKS/);
    expect(run.stdout).toMatch(/locks\/advisory-session.*\n\s+on this pooler: exclusive -> fine/);
  });

  test('nothing breaks on a pooler that keeps every state with its client: exit 0', async () => {
    const path = await writeReport('session-mode.json', [
      check('session/set-leak', 'session', 'pass'),
      check('locks/advisory-session', 'exclusive', 'pass'),
      check('notify/listen', 'delivered', 'pass'),
      check('temp/temp-table', 'session', 'pass'),
      check('sequences/lastval', 'session', 'pass'),
    ]);
    expect((await runAudit(['--sql', app, '--report', path])).code).toBe(0);
  });

  test('a skipped check counts as unknown, not as fine or broken', async () => {
    const path = await writeReport('skipped.json', [check('session/set-leak', 'leaked', 'skipped')]);
    const json = dir.file('skipped-out.json');
    await runAudit(['--sql', app, '--report', path, '--json', json]);
    const audit = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(audit.findings.find((f) => f.check === 'session/set-leak')).toMatchObject({
      outcome: null,
      breaks: 'unknown',
    });
  });

  test('a file that is not a pooltest report is refused', async () => {
    const notJson = dir.file('not.json');
    await writeFile(notJson, '{ nope');
    expect((await runAudit(['--sql', app, '--report', notJson])).stderr).toContain(
      `AUDIT_INPUT: --report ${notJson}: not JSON`,
    );
    const other = dir.file('other.json');
    await writeFile(other, JSON.stringify({ findings: [] }));
    expect((await runAudit(['--sql', app, '--report', other])).stderr).toContain(
      'not a pooltest report (no "checks" array)',
    );
  });
});

describe('without a pooler', () => {
  test('findings show what transaction pooling typically does, and exit 3: breaking findings not confirmed on a pooler', async () => {
    const json = dir.file('typical.json');
    const run = await runAudit(['--sql', app, '--json', json]);
    // Before: exit 0 while printing BREAKS. A report that says it breaks never exits 0.
    expect(run.code).toBe(3);
    const audit = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(audit.pooler.basis).toBe('typical');
    expect(Object.fromEntries(audit.findings.map((f) => [f.check, f.outcome]))).toEqual({
      'session/set-leak': 'leaked',
      'locks/advisory-session': 'shared',
      'notify/listen': 'misrouted',
      // The profile and the real fixture agree: PgBouncer transaction mode leaks these to the
      // next client on the backend (an older audit table said "lost" here, contradicting both).
      'temp/temp-table': 'leaked',
      'sequences/lastval': 'leaked',
    });
    expect(run.stdout).toContain('typically (transaction pooling): leaked -> typically BREAKS (not confirmed)');
    expect(run.stdout).toMatch(/exit 3: findings typically break under transaction pooling, not confirmed on a pooler/);
  });

  test('the footer says what the exit code of this run means: 0 findings, exit 0, no word of exit 3', async () => {
    const clean = dir.file('clean.sql');
    await writeFile(clean, 'SELECT 1;\nSET LOCAL statement_timeout = 5;\n');
    const run = await runAudit(['--sql', clean]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('0 finding(s), 0 break under typical transaction pooling');
    expect(run.stdout).toContain('exit 0: no statement relies on session state');
    // Before: "(no pooler given: exit 3 unless --fail-on-findings)" after a run that exited 0.
    expect(run.stdout).not.toMatch(/exit 3/);
  });

  test('--fail-on-findings turns a typically breaking finding into exit 1, but not one the pooler given keeps', async () => {
    expect((await runAudit(['--sql', app, '--fail-on-findings'])).code).toBe(1);
    const tracked = dir.file('tracked.sql');
    await writeFile(tracked, "SET application_name = 'worker';\n");
    // Typical transaction pooling (the pgbouncer-transaction profile) shows the name to clients
    // that send none at startup: leaked. A pooler whose report says tracked keeps it.
    const typical = await runAudit(['--sql', tracked, '--fail-on-findings']);
    expect(typical.stdout).toContain(
      'typically (transaction pooling), per setting: application_name: leaked -> typically BREAKS',
    );
    // The footer says what this run's exit code means.
    expect(typical.stdout).toContain('exit 1: findings typically break under transaction pooling (--fail-on-findings)');
    const keeps = await writeReport('tracks.json', [check('session/tracked-parameter', 'tracked', 'observed')]);
    const run = await runAudit(['--sql', tracked, '--report', keeps, '--fail-on-findings']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('exit 0: nothing breaks on this pooler');
  });
});

describe('terminal colour', () => {
  const ESC = '\u001b[';

  test('NO_COLOR gives plain text', async () => {
    expect((await runAudit(['--sql', app], { NO_COLOR: '1', FORCE_COLOR: '1' })).stdout).not.toContain(ESC);
  });

  test('FORCE_COLOR gives colour, and --no-color wins over it', async () => {
    expect((await runAudit(['--sql', app], { FORCE_COLOR: '1' })).stdout).toContain(ESC);
    expect((await runAudit(['--sql', app, '--no-color'], { FORCE_COLOR: '1' })).stdout).not.toContain(ESC);
  });
});

describe('the audit and the profiles agree by construction', () => {
  test("every check the audit knows has the typical profile's expectation as its typical outcome, and the check's own advice", async () => {
    const { AUDIT_CHECKS, TYPICAL_PROFILE } = await import('../../audit/audit-checks.js');
    const { findProfile } = await import('../../profiles/index.js');
    const { CATALOGUE } = await import('../../suites/catalogue.js');
    const profile = findProfile(TYPICAL_PROFILE);
    expect(AUDIT_CHECKS.length).toBeGreaterThan(5);
    for (const info of AUDIT_CHECKS) {
      expect(info.typicalOutcome, info.id).toBe(profile.expect[info.id]?.outcome);
      const check = CATALOGUE.find((c) => c.id === info.id)!;
      const advice = Object.values(check.outcomes as Record<string, { advice?: string }>).map((o) => o.advice);
      expect(advice, info.id).toContain(info.advice);
    }
  });
});
