/**
 * Everything a run writes: the files asked for (`--json`, `--junit`, `--markdown`, `--html`) and the
 * copy in the run history. All of it is rendered from the report, which never holds a
 * password, and every renderer redacts URLs as a second line of defence. A file the user asked
 * for that cannot be written is an error (CI must not gate on a stale file); a history that
 * cannot be stored is only a warning, since the run itself is fine.
 */
import { closeSync, constants, existsSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { renderDiffMarkdown } from '../reporters/diff-markdown.js';
import { diffToJson, reportToJson } from '../reporters/json-reporter.js';
import { checkOutputPath, outputPlace, writeAtomically } from '../reporters/output-file.js';
import { renderJunit } from '../reporters/junit-reporter.js';
import { renderMarkdown } from '../reporters/markdown-reporter.js';
import { renderHtml } from '../reporters/html-reporter.js';
import { PooltestError } from '../engine/record/errors.js';
import { STDOUT } from '../common/option-table.js';
import { writeTo } from './closed-pipes.js';
import type { ReportDiff } from '../reporters/report-diff.js';
import type { Report } from '../engine/types.js';
import { storeRun, type StoredRun } from './run-store.js';

/** Where to write, as the flags say. */
export interface OutputRequest {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  store: boolean;
}

/** A `--compare` run adds the baseline's report and the diff. */
export interface Comparison {
  baseline: Report;
  diff: ReportDiff;
}

const OUTPUT_KINDS = ['json', 'junit', 'markdown', 'html'] as const;

/** OUTPUT_FAILED naming the file and the reason. */
function outputFailed(file: string, err: unknown): PooltestError {
  return new PooltestError(
    'OUTPUT_FAILED',
    `cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`,
    {
      file,
    },
  );
}

/**
 * Before the run: every file asked for must be writable (not a directory, in a folder that is
 * one and may be written), so a typo ends the command at once instead of after every check.
 */
export function checkOutputs(req: Omit<OutputRequest, 'store'>): void {
  const places = new Map<string, string>();
  for (const kind of OUTPUT_KINDS) {
    const file = req[kind];
    if (file === undefined || file === STDOUT) continue;
    try {
      checkOutputPath(file);
      probeWritable(file);
    } catch (err) {
      throw outputFailed(file, err);
    }
    // Two reports written to one file: the second would silently replace the first. (A
    // device or a pipe, /dev/null say, may take both.)
    const place = outputPlace(file);
    if (place.kind !== 'atomic') continue;
    const earlier = places.get(place.path);
    if (earlier !== undefined)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `--${earlier} and --${kind} both write ${file}: give each its own file`,
        {
          file,
        },
      );
    places.set(place.path, kind);
  }
}

/**
 * Tries the write itself, as far as it can be tried without harm: a permission check passes
 * for root on a file no write reaches (`/proc/version` answers EIO, a full device ENOSPC), and
 * the run would then cost its checks before failing. An existing file that is not a FIFO is
 * opened for appending (never truncated) and given a write of zero bytes, which such files
 * refuse; a regular file that does not exist yet is created and removed again, as the real
 * write will create it. FIFOs and this process's own descriptors are not opened (closing a
 * FIFO would end a reader waiting on it; see output-file.ts).
 */
function probeWritable(file: string): void {
  const place = outputPlace(file);
  if (place.kind === 'fd' || place.kind === 'directory') return;
  if (place.kind === 'direct' && statSync(place.path).isFIFO()) return;
  if (place.kind === 'atomic' && !existsSync(path.dirname(place.path))) return; // made by the write
  const existed = existsSync(place.path);
  const fd = openSync(place.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    writeSync(fd, Buffer.alloc(0));
  } finally {
    closeSync(fd);
    if (!existed) rmSync(place.path, { force: true });
  }
}

/**
 * Writes a file the user asked for (output-file.ts), or standard output for `-`; OUTPUT_FAILED
 * when it cannot be written.
 */
export function writeOutput(file: string, text: string): void {
  if (file === STDOUT) return writeTo(process.stdout, text);
  try {
    writeAtomically(file, text);
  } catch (err) {
    throw outputFailed(file, err);
  }
}

/**
 * Writes the requested files and stores the run; returns the stored run, or null. Every file is
 * tried; the first that failed is then thrown (OUTPUT_FAILED), after the history was stored.
 */
export function writeOutputs(
  report: Report,
  req: OutputRequest,
  comparison: Comparison | null,
  warn: (text: string) => void,
): StoredRun | null {
  const texts = {
    json: reportToJson(report),
    junit: renderJunit(report),
    // With --compare the Markdown leads with what changes, then the target's own table.
    markdown: comparison ? `${renderDiffMarkdown(comparison.diff)}\n${renderMarkdown(report)}` : renderMarkdown(report),
    html: renderHtml(report),
  };
  let failure: unknown = null;
  for (const kind of OUTPUT_KINDS) {
    const file = req[kind];
    if (file === undefined) continue;
    try {
      writeOutput(file, texts[kind]);
    } catch (err) {
      failure ??= err;
    }
  }
  const stored = req.store ? store(texts, report, comparison, warn) : null;
  if (failure !== null) throw failure;
  return stored;
}

function store(
  texts: Record<(typeof OUTPUT_KINDS)[number], string>,
  report: Report,
  comparison: Comparison | null,
  warn: (text: string) => void,
): StoredRun | null {
  const files: Record<string, string> = {
    'report.json': texts.json,
    'junit.xml': texts.junit,
    'report.md': texts.markdown,
    'report.html': texts.html,
  };
  if (comparison) {
    files['baseline.json'] = reportToJson(comparison.baseline);
    files['diff.json'] = diffToJson(comparison.diff);
  }
  try {
    return storeRun(files, report.startedAt);
  } catch (err) {
    warn(
      `pooltest: could not store this run under .pooltest/ (use --no-store to skip): ${err instanceof Error ? err.message : String(err)}`,
    );
    return null;
  }
}
