/**
 * Reports for the reporter tests: the real runs stored in test/judges/reports (PgBouncer 1.18 in
 * transaction mode with its profile, and PostgreSQL direct), the same files the re-judging test
 * holds to their record, so there is one set of stored reports and a re-recording
 * (bench/record-sample-reports.ts) reaches every reader. Tests read what they expect from the
 * report they are given (ids, outcomes, pids, step counts), never a literal of one recording.
 * Variants built from them stand for what a healthy run does not show (failures, inconclusives,
 * dirty sweeps, hostile text). One deliberately old schema-1 report is kept apart for the
 * compatibility tests (test/judges/reports/old).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult, Report } from '../../engine/types.js';
import { sweepResult } from '../support/sweep.js';

const REPORTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../judges/reports');

/** The file of a stored report of this schema, by the fixture it was recorded on. */
export function sampleFile(name: 'direct' | 'pgbouncer-transaction'): string {
  return path.join(REPORTS, `${name}.report.json`);
}

/** The one stored report of schema 1, kept as the control for the compatibility readers. */
export const SCHEMA_ONE_FILE = path.join(REPORTS, 'old', 'schema-1.report.json');

function load(name: 'direct' | 'pgbouncer-transaction'): Report {
  return JSON.parse(readFileSync(sampleFile(name), 'utf8')) as Report;
}

/** The old report exactly as schema 1 wrote it (PostgreSQL direct), for the compatibility tests. */
export function schemaOneReport(): Report {
  return JSON.parse(readFileSync(SCHEMA_ONE_FILE, 'utf8')) as Report;
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
  // A backend of the recorded run, whatever its pid was this recording.
  const pid = r.sweep!.backendsVisited[0]!;
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
    reason: `steering failed: the observer never landed on backend ${pid}`,
  });
  edit('notify/listen', { verdict: 'skipped', outcome: null, reason: 'needs --direct' });
  edit('locks/advisory-session', { severity: 'security' });
  r.sweep = sweepResult('dirty', {
    backendsVisited: [pid],
    leftovers: [`backend ${pid}: statement_timeout = 3438007ms`],
  });
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
