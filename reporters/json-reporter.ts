/**
 * The JSON report: the machine contract. Written atomically (temp file, then rename; see
 * output-file.ts) so a CI job never reads half a report. The report type itself never holds a password; as a second
 * line of defence, anything that looks like a URL with credentials is redacted on the way out.
 */
import { writeAtomically } from './output-file.js';
import { redactUrl } from '../engine/target/target.js';
import type { ReportDiff } from './report-diff.js';
import type { Report } from '../engine/types.js';

/** The report as pretty JSON (schema/report.schema.json), with a final newline. */
export function reportToJson(report: Report): string {
  return redactUrl(JSON.stringify(report, null, 2)) + '\n';
}

/** A diff of two reports as pretty JSON (documented in docs/report-format.md). */
export function diffToJson(diff: ReportDiff): string {
  return redactUrl(JSON.stringify(diff, null, 2)) + '\n';
}

/** Writes the JSON report to `file`, atomically. */
export function writeJsonReport(report: Report, file: string): void {
  writeAtomically(file, reportToJson(report));
}

/** Writes `text` to `file` (output-file.ts: atomically, or directly to a device or pipe). */
export { writeAtomically };
