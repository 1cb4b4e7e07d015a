/**
 * What a report contains, and the profiles its outcomes are compared with. The JSON report is
 * built from these types, so changing a field here is changing the public contract (see
 * `REPORT_SCHEMA_VERSION`). The vocabulary they are made of lives in engine/record/, by concern
 * (what a step records, what a check concludes, what discovery learns, what the sweep found),
 * and is re-exported here for the rest of the product.
 */

import type { Discovery } from './record/discovery-facts.js';
import type { Severity, Verdict } from './record/judgement.js';
import type { Facts, StepRecord } from './record/step-record.js';
import type { SweepResult } from './record/sweep-result.js';

export type { Discovery, WireFinding } from './record/discovery-facts.js';
export type { Judgement, Labelled, Severity, Skipped, Unknown, Verdict } from './record/judgement.js';
export type { ErrorRecord, Facts, NoticeRecord, NotificationRecord, StepRecord } from './record/step-record.js';
export { sweepState, type SweepResult, type SweepState } from './record/sweep-result.js';
import type { ExpectationBasis } from './record/profile.js';

export type { Expectation, ExpectationBasis, Profile } from './record/profile.js';

/** Bumped whenever a field of {@link Report} changes meaning or disappears. */
export const REPORT_SCHEMA_VERSION = 2;

/** The result of one check in one run. */
export interface CheckResult {
  id: string;
  title: string;
  severity: Severity;
  outcome: string | null;
  expected: string | null;
  expectedRef: string | null;
  /** How the expectation is known (see ExpectationBasis); absent in reports older than this field. */
  expectedBasis?: ExpectationBasis | null;
  verdict: Verdict;
  /** Why the verdict is what it is (the judge's reason, or why the check was skipped). */
  reason: string;
  facts: Facts;
  /** One line of evidence for the terminal table. */
  evidence: string;
  advice: string | null;
  steps: StepRecord[];
  durationMs: number;
  /** Statements sent to the target, holders and cleanup included. */
  statements: number;
  cleanup: { ok: boolean; detail: string };
}

/** A target as it may be shown or stored: never a password. */
export interface PublicTarget {
  host: string;
  port: number;
  user: string;
  database: string;
  ssl: string;
}

export interface ReportSummary {
  total: number;
  /** Checks whose outcome matched an expectation (never a mere observation). */
  pass: number;
  fail: number;
  /** Checks with an outcome and no expectation. */
  observed: number;
  inconclusive: number;
  skipped: number;
  /** Whether `--strict` was on: inconclusive checks and an unfinished sweep then set exit 1. */
  strict: boolean;
  /** `--fail-on-breaks`: an outcome that breaks an application set exit 1 (absent: off). */
  failOnBreaks?: boolean;
  exitCode: number;
  /** SIGINT/SIGTERM stopped the run: what did not run says so, and exitCode is 130. */
  interrupted?: boolean;
}

/** The machine contract: what `--json` writes. */
export interface Report {
  schemaVersion: number;
  tool: { name: 'pooltest'; version: string };
  runId: string;
  startedAt: string;
  durationMs: number;
  target: PublicTarget;
  direct: PublicTarget | null;
  discovery: Omit<Discovery, 'steps'> & { steps?: StepRecord[] };
  profile: { name: string; title: string; ref: string } | null;
  checks: CheckResult[];
  sweep: SweepResult | null;
  summary: ReportSummary;
}
