/**
 * pooltest as a library: `import { run } from 'pooltest'`. `run()` does what the CLI does
 * (discover the target, run the checks, sweep, build the report) and returns the report; the
 * renderers turn it into the CLI's outputs; `diffReports` compares two runs. Nothing here
 * starts fixtures or loads testcontainers. To run the checks inside your own Vitest setup,
 * see `pooltest/vitest` (docs/library.md).
 */
export { run, selectChecks, toolVersion, DEFAULT_MAX_POOL, DEFAULT_TIMEOUT_MS, type RunOptions } from './run.js';
export { listChecks, type CheckInfo } from './checks-list.js';
export { findProfile, PROFILES } from '../profiles/index.js';
export { loadExpectations, parseExpectations } from './expectations.js';
export { CHECK_IDS, CHECK_LABELS, isLabelOf, labelsOf, type CheckId, type OutcomeOf } from '../suites/labels.js';
export { OUTCOME_BREAKS, outcomeBreaks, type OutcomeBreaks } from '../suites/outcome-breaks.js';
export {
  DIFF_SCHEMA_VERSION,
  diffReports,
  type ChangeKind,
  type DiffEntry,
  type DiffSide,
  type ReportDiff,
} from '../reporters/report-diff.js';
export { isPooltestError, PooltestError, type PooltestErrorCode } from '../engine/record/errors.js';
export {
  publicTarget,
  redactUrl,
  resolveRelated,
  resolveTarget,
  type SslMode,
  type Target,
  type TargetInput,
} from '../engine/target/target.js';
export {
  REPORT_SCHEMA_VERSION,
  type CheckResult,
  type Discovery,
  type ErrorRecord,
  type Facts,
  type NoticeRecord,
  type NotificationRecord,
  type PublicTarget,
  type Report,
  type ReportSummary,
  type Severity,
  type StepRecord,
  type SweepResult,
  type Verdict,
} from '../engine/types.js';
export type { Expectation, Profile } from '../engine/record/profile.js';
export { renderDiscovery, renderQuiet, renderReport, type TerminalOptions } from '../reporters/terminal-reporter.js';
export { diffToJson, reportToJson, writeJsonReport } from '../reporters/json-reporter.js';
export { renderJunit } from '../reporters/junit-reporter.js';
export { renderMarkdown } from '../reporters/markdown-reporter.js';
export { renderDiff, type DiffTerminalOptions } from '../reporters/diff-terminal.js';
export { renderDiffMarkdown } from '../reporters/diff-markdown.js';
export { renderHtml } from '../reporters/html-reporter.js';
export {
  buildMatrix,
  MATRIX_VERSION,
  type Matrix,
  type MatrixCell,
  type MatrixColumn,
  type MatrixRow,
  type NamedReport,
} from '../reporters/matrix.js';
export { renderMatrixMarkdown, renderMatrixTerminal } from '../reporters/matrix-text.js';
export { renderMatrixHtml } from '../reporters/matrix-html.js';
