/**
 * Reports for the reporter tests: two real runs recorded from the fixtures (PgBouncer 1.18 in
 * transaction mode with its profile, and PostgreSQL direct), plus variants built from them for
 * what a healthy run does not show (failures, inconclusives, dirty sweeps, hostile text).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult, Report } from '../../engine/types.js';
import { upgradeReport } from '../../reporters/report-compat.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The files were recorded with schema 1; they are read the way every reader reads one. */
function load(name: string): Report {
  return upgradeReport(JSON.parse(readFileSync(path.join(HERE, 'fixtures', `${name}.report.json`), 'utf8')) as Report);
}

/** A recorded report exactly as schema 1 wrote it, for the compatibility tests. */
export function schemaOneReport(name: 'direct' | 'pgbouncer-transaction'): Report {
  return JSON.parse(readFileSync(path.join(HERE, 'fixtures', `${name}.report.json`), 'utf8')) as Report;
}

/** PgBouncer 1.18, transaction pooling, profile pgbouncer-transaction: every check as expected. */
export function pgbouncerReport(): Report {
  return load('pgbouncer-transaction');
}

/** PostgreSQL without a pooler, profile direct. */
export function directReport(): Report {
  return load('direct');
}

/** Text a server or pooler could send that breaks naive XML or Markdown. */
export const HOSTILE = 'a <b> & "c" \'d\' | e ]]> f\u0001g\nh\ti postgres://app:S3cret@db:5432/x';

/** Retitles the window, rings the bell, clears the screen, turns the text red, then a new line. */
export const ESCAPES = '\u001b]0;PWNED\u0007\u001b[2J\u001b[31mRED\nFORGED LINE';

/** Any C0 or C1 control character except the line feed that ends each line. */
export const CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;

/**
 * The PgBouncer report with one check failed, one inconclusive, one skipped, a security check,
 * hostile text in a failed check, and a dirty sweep; the summary follows.
 */
export function troubledReport(): Report {
  const r = pgbouncerReport();
  const edit = (id: string, change: Partial<CheckResult>): void => {
    const c = r.checks.find((x) => x.id === id);
    if (!c) throw new Error(`no ${id} in the sample`);
    Object.assign(c, change);
  };
  edit('session/set-leak', {
    verdict: 'fail',
    expected: 'session',
    reason: `judge saw ${HOSTILE}`,
    evidence: `evidence ${HOSTILE}`,
  });
  edit('temp/temp-table', {
    verdict: 'inconclusive',
    outcome: null,
    reason: 'steering failed: the observer never landed on backend 1935',
  });
  edit('notify/listen', { verdict: 'skipped', outcome: null, reason: 'needs --direct' });
  edit('locks/advisory-session', { severity: 'security' });
  r.sweep = {
    clean: false,
    backendsVisited: [1935],
    leftovers: ['backend 1935: statement_timeout = 3438007ms'],
    via: ['target'],
  };
  const count = (v: string): number => r.checks.filter((c) => c.verdict === v).length;
  r.summary = {
    total: r.checks.length,
    pass: count('pass'),
    fail: count('fail'),
    observed: count('observed'),
    inconclusive: count('inconclusive'),
    skipped: count('skipped'),
    strict: false,
    exitCode: 1,
  };
  return r;
}
