/**
 * The JSON report: the machine contract. Written atomically (temp file, then rename) so a CI
 * job never reads half a report. The report type itself never holds a password; as a second
 * line of defence, anything that looks like a URL with credentials is redacted on the way out.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redactUrl } from '../engine/target.js';
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

/** Writes `text` to `file` through a temp file in the same folder. */
export function writeAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
