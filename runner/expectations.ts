/**
 * A vendor's own expectations (`--expect FILE`, `POOLTEST_EXPECT`): which outcome each check
 * should show on their pooler, each with a reference, optionally on top of a built-in profile.
 * The file becomes an ordinary {@link Profile}, so verdicts, reports and exit codes work as with
 * `--profile`. Every problem in the file is reported at once, with where it is, before anything
 * connects: a typo in a label must not quietly turn an assertion into nothing. A check id this
 * version does not know is the exception: the file may be newer than this pooltest (written for
 * a check added since), so its entry is ignored, and a warning names it (never silently).
 *
 * ```json
 * { "extends": "pgbouncer-transaction", "name": "acme-pooler-2",
 *   "expect": { "session/set-leak": { "outcome": "tracked", "ref": "https://acme.example/docs#set" },
 *               "notify/listen": null } }
 * ```
 * `null` removes an expectation inherited from the base profile (the check is then observed only).
 */
import { readFileSync } from 'node:fs';
import { parseJsonBytes } from '../engine/record/json-file.js';
import path from 'node:path';
import { PooltestError } from '../engine/record/errors.js';
import { labelsOf } from '../suites/labels.js';
import { PROFILES } from '../profiles/index.js';
import { isReference } from '../profiles/validate-profile.js';
import type { Expectation, Profile } from '../engine/record/profile.js';

const TOP_LEVEL = new Set(['$schema', 'extends', 'name', 'title', 'ref', 'expect']);
const ENTRY = new Set(['outcome', 'ref', 'note']);

/** Where warnings go (the ids this version has no check for): stderr unless told otherwise. */
export type ExpectationsWarn = (text: string) => void;
const toStderr: ExpectationsWarn = (text) => void process.stderr.write(`${text}\n`);

/** Reads and validates an expectations file; throws EXPECTATIONS_INVALID listing every problem. */
export function loadExpectations(file: string, warn: ExpectationsWarn = toStderr): Profile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new PooltestError(
      'EXPECTATIONS_INVALID',
      `cannot read expectations file ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const read = parseJsonBytes(bytes);
  if (!read.ok) throw new PooltestError('EXPECTATIONS_INVALID', `${file} ${read.problem}`);
  return parseExpectations(read.value, file, warn);
}

/** Validates parsed expectations (`source` names them in messages) and builds the profile. */
export function parseExpectations(value: unknown, source: string, warn: ExpectationsWarn = toStderr): Profile {
  const problems: string[] = [];
  const unknownIds: string[] = [];
  if (!isObject(value)) throw invalid(source, ['the file must hold a JSON object with an "expect" object']);
  for (const key of Object.keys(value)) {
    if (!TOP_LEVEL.has(key)) problems.push(`unknown key "${key}" (allowed: ${[...TOP_LEVEL].join(', ')})`);
  }
  for (const key of ['extends', 'name', 'title', 'ref'] as const) {
    if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key] === ''))
      problems.push(`"${key}" must be a non-empty string`);
  }
  let base: Profile | null = null;
  if (typeof value.extends === 'string' && value.extends !== '') {
    base = PROFILES.find((p) => p.name === value.extends) ?? null;
    if (!base)
      problems.push(
        `"extends": unknown profile "${value.extends}"; built-in profiles: ${PROFILES.map((p) => p.name).join(', ')}`,
      );
  }
  const expect: Record<string, Expectation> = { ...(base?.expect ?? {}) };
  if (!isObject(value.expect)) {
    problems.push('"expect" must be an object mapping check ids to { "outcome", "ref" }');
  } else {
    for (const [id, entry] of Object.entries(value.expect)) {
      if (labelsOf(id) === null) {
        unknownIds.push(id);
        continue;
      }
      const problem = entryProblem(id, entry);
      if (problem) problems.push(`expect["${id}"]: ${problem}`);
      else if (entry === null) delete expect[id];
      else expect[id] = toExpectation(entry as Record<string, unknown>);
    }
  }
  if (problems.length > 0) throw invalid(source, problems);
  if (unknownIds.length > 0)
    warn(
      `pooltest: note: ${source}: this version has no check ${unknownIds.join(', ')} (see pooltest --list); those expectations are ignored`,
    );
  return buildProfile(value, base, expect, source);
}

/** What is wrong with one entry of `expect`, or null. */
function entryProblem(id: string, entry: unknown): string | null {
  const labels = labelsOf(id) ?? [];
  if (entry === null) return null;
  if (!isObject(entry)) return 'must be { "outcome": "<label>", "ref": "<reference>" } or null';
  const extra = Object.keys(entry).filter((k) => !ENTRY.has(k));
  if (extra.length > 0) return `unknown key(s) ${extra.map((k) => `"${k}"`).join(', ')} (allowed: outcome, ref, note)`;
  if (typeof entry.outcome !== 'string') return '"outcome" must be a label string';
  if (labels.length === 0) return `no outcome can be expected of this check yet: its labels are still being defined`;
  if (!labels.includes(entry.outcome))
    return `"${entry.outcome}" is not a label of this check; its labels: ${labels.join(', ')}`;
  if (typeof entry.ref !== 'string' || !isReference(entry.ref)) {
    return '"ref" must point at the documentation or source the expectation rests on: a https:// URL or owner/repo@ref:path, optionally followed by a comment';
  }
  if (entry.note !== undefined && typeof entry.note !== 'string') return '"note" must be a string';
  return null;
}

function toExpectation(entry: Record<string, unknown>): Expectation {
  const e: Expectation = { outcome: entry.outcome as string, ref: entry.ref as string };
  if (typeof entry.note === 'string') e.note = entry.note;
  return e;
}

function buildProfile(
  file: Record<string, unknown>,
  base: Profile | null,
  expect: Record<string, Expectation>,
  source: string,
): Profile {
  const stem = path.basename(source).replace(/\.json$/i, '');
  const str = (k: string): string | undefined => (typeof file[k] === 'string' ? (file[k] as string) : undefined);
  return {
    name: str('name') ?? (base ? `${base.name}+${stem}` : stem),
    title:
      str('title') ??
      (base
        ? `${base.title}, with expectations from ${path.basename(source)}`
        : `expectations from ${path.basename(source)}`),
    pooler: base?.pooler ?? 'custom',
    mode: base?.mode ?? 'custom',
    versions: base?.versions ?? 'as stated in the expectations file',
    ref: str('ref') ?? base?.ref ?? source,
    expect,
  };
}

function invalid(source: string, problems: string[]): PooltestError {
  return new PooltestError(
    'EXPECTATIONS_INVALID',
    `${source}: ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
