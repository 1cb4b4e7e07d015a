/**
 * `pooltest audit --merge a.json b.json ...`: the audit reports of several logs (a fleet's
 * servers, one huge log split by time, parallel CI jobs) merged into the report one audit of
 * all of them would have written. Findings, cleanups and unparsed samples with the same key as
 * the audit's own (audit-collector.ts) are one: counts add up, the first reports' sources come
 * first (up to the same bound), the order is the audit's (priority, then count, then where it
 * was first seen), and the summary and derived warnings are computed again.
 *
 * What a merge cannot know, and so says differently from one audit of everything:
 * - `generatedAt` is the merge's time and `summary.durationMs` the reports' durations added;
 * - `summary.parsedTexts` adds the reports' counts (a text parsed in two runs counts twice);
 * - `unparsed.distinct` is exact only while each report's unparsed texts all fit in its samples
 *   (then the shared ones are known); past that it adds them, an upper bound;
 * - past the bound of kept findings (10,000) the order in which findings were first seen
 *   across reports is approximated by the reports' order.
 */
import { readFile } from 'node:fs/promises';
import { PooltestError } from '../engine/record/errors.js';
import { CLAIMS } from '../suites/catalogue.js';
import { missingCheckWarning, statsNamesWarning, unparsedWarning } from './audit.js';
import { AUDIT_CHECKS, checkPriority } from './audit-checks.js';
import { MAX_FINDINGS, MAX_SOURCES, MAX_UNPARSED_DISTINCT, MAX_UNPARSED_SAMPLES } from './audit-collector.js';
import {
  AUDIT_SCHEMA_VERSION,
  type AuditCheckId,
  type AuditCleanup,
  type AuditFinding,
  type AuditReport,
  type AuditTraffic,
  type UnparsedSample,
} from './audit-types.js';
import { fileError } from './input-checks.js';

/** Reads and merges the audit reports at `paths`, in that order. */
export async function mergeAuditFiles(paths: readonly string[]): Promise<AuditReport> {
  const reports: AuditReport[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw fileError(path, error, '--merge');
    }
    reports.push(checkedAuditReport(text, path));
  }
  return mergeAuditReports(reports);
}

/** The parts of a report a merge reads, checked so that a wrong file is a clear error. */
function checkedAuditReport(text: string, path: string): AuditReport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new PooltestError('AUDIT_INPUT', `--merge ${path}: not JSON (${(error as Error).message})`, { file: path });
  }
  const r = data as Partial<AuditReport> | null;
  const problem =
    r === null || typeof r !== 'object' || r.tool?.command !== 'audit'
      ? 'not a pooltest audit report (pooltest audit --json)'
      : r.schemaVersion !== AUDIT_SCHEMA_VERSION
        ? `audit report schema ${String(r.schemaVersion)}, this version merges schema ${AUDIT_SCHEMA_VERSION}`
        : !Array.isArray(r.inputs) ||
            !Array.isArray(r.findings) ||
            !Array.isArray(r.cleanups) ||
            !Array.isArray(r.warnings) ||
            !Array.isArray(r.unparsed?.samples) ||
            typeof r.summary?.statements !== 'number' ||
            typeof r.pooler?.name !== 'string'
          ? 'an audit report with parts missing'
          : null;
  if (problem !== null) throw new PooltestError('AUDIT_INPUT', `--merge ${path}: ${problem}`, { file: path });
  return r as AuditReport;
}

/** Where an entry was first seen: input (in the merged order), line, then order of arrival. */
type Position = [input: number, line: number, arrival: number];

function comparePositions(a: Position, b: Position): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

interface Kept<T> {
  item: T;
  at: Position;
}

/** Merges reports in their order (see the module comment for what differs from one audit). */
export function mergeAuditReports(reports: readonly AuditReport[]): AuditReport {
  if (reports.length === 0) throw new PooltestError('BAD_ARGUMENTS', '--merge needs at least one audit report');
  const first = reports[0]!;
  const inputs = reports.flatMap((r) => r.inputs.map((i) => ({ ...i })));
  const inputIndex = new Map<string, number>();
  inputs.forEach((input, i) => {
    if (!inputIndex.has(input.name)) inputIndex.set(input.name, i);
  });
  let arrival = 0;
  let inputsBefore = 0;
  /** `file:line` of an SQL file or log; anything else (pg_stat_statements) keeps its report's place. */
  const position = (source: string, ownFirstInput: number): Position => {
    const colon = source.lastIndexOf(':');
    const line = colon < 0 ? NaN : Number(source.slice(colon + 1));
    const input = colon < 0 ? undefined : inputIndex.get(source.slice(0, colon));
    return input === undefined || !Number.isInteger(line) ? [ownFirstInput, 0, arrival++] : [input, line, arrival++];
  };

  const pooler = mergedPooler(reports);
  const namedCheck = CLAIMS.checkOfStatement('protocol named statement');
  const findings = new Map<string, Kept<AuditFinding>>();
  const cleanups = new Map<string, Kept<AuditCleanup>>();
  const overflow: Record<string, number> = {};
  let overflowBreaking = 0;
  for (const report of reports) {
    for (const [id, n] of Object.entries(report.overflow ?? {})) overflow[id] = (overflow[id] ?? 0) + n;
    const listedBreaking = report.findings.filter((f) => f.breaks === true).reduce((n, f) => n + f.count, 0);
    overflowBreaking += report.summary.breakingCount - listedBreaking;
    for (const f of report.findings) {
      // The collector's own keys: a named statement by its text, anything else by what and shape.
      const key =
        f.check === namedCheck ? `${f.check}\u0000${f.statement}` : `${f.check}\u0000${f.what}\u0000${f.normalized}`;
      const kept = findings.get(key);
      if (kept !== undefined) {
        kept.item.count += f.count;
        kept.item.sources = [...kept.item.sources, ...f.sources].slice(0, MAX_SOURCES);
        kept.item.alsoChecks = [...new Set([...kept.item.alsoChecks, ...f.alsoChecks])];
      } else if (findings.size >= MAX_FINDINGS) {
        overflow[f.check] = (overflow[f.check] ?? 0) + f.count;
        if (f.breaks === true) overflowBreaking += f.count;
      } else findings.set(key, { item: { ...f, sources: [...f.sources] }, at: position(f.source, inputsBefore) });
    }
    for (const c of report.cleanups) {
      const key = `${c.what}\u0000${c.normalized}`;
      const kept = cleanups.get(key);
      if (kept !== undefined) {
        kept.item.count += c.count;
        kept.item.sources = [...kept.item.sources, ...c.sources].slice(0, MAX_SOURCES);
        kept.item.undoes = [...new Set([...kept.item.undoes, ...c.undoes])];
      } else if (cleanups.size < MAX_FINDINGS)
        cleanups.set(key, { item: { ...c, sources: [...c.sources] }, at: position(c.source, inputsBefore) });
    }
    inputsBefore += report.inputs.length;
  }

  const findingList = [...findings.values()]
    .sort(
      (a, b) =>
        checkPriority(a.item.check) - checkPriority(b.item.check) ||
        b.item.count - a.item.count ||
        comparePositions(a.at, b.at),
    )
    .map((k) => ({ ...k.item, source: k.item.sources[0] ?? '' }));
  const found = new Set(findingList.map((f) => f.check));
  const cleanupList = [...cleanups.values()]
    .map((k) => ({ ...k, item: { ...k.item, paired: k.item.undoes.some((id) => found.has(id)) } }))
    .sort(
      (a, b) =>
        Number(b.item.paired) - Number(a.item.paired) || b.item.count - a.item.count || comparePositions(a.at, b.at),
    )
    .map((k) => ({ ...k.item, source: k.item.sources[0] ?? '' }));
  const unparsed = mergedUnparsed(reports);
  const checks = [...new Set([...findingList.map((f) => f.check), ...(Object.keys(overflow) as AuditCheckId[])])];
  checks.sort((a, b) => checkPriority(a) - checkPriority(b));
  const outcomes: Record<string, string | null> = {};
  for (const id of checks.length > 0 ? checks : AUDIT_CHECKS.map((c) => c.id))
    outcomes[id] = pooler.outcomes[id] ?? null;
  const breaking = findingList.filter((f) => f.breaks === true);
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    tool: { name: 'pooltest', command: 'audit' },
    generatedAt: new Date().toISOString(),
    inputs,
    pooler: { ...first.pooler, outcomes },
    summary: {
      statements: sum(reports, (r) => r.summary.statements),
      parsedTexts: sum(reports, (r) => r.summary.parsedTexts),
      findings: findingList.length,
      cleanups: cleanupList.length,
      breaking: breaking.length,
      breakingCount: breaking.reduce((n, f) => n + f.count, 0) + overflowBreaking,
      unparsed: unparsed.count,
      durationMs: sum(reports, (r) => r.summary.durationMs),
    },
    findings: findingList,
    cleanups: cleanupList,
    overflow,
    unparsed,
    warnings: mergedWarnings(reports, checks, unparsed),
    traffic: mergedTraffic(reports),
  };
}

/** The reports' COPY traffic, one entry per kind and statement, counts added, sources kept to the bound. */
function mergedTraffic(reports: readonly AuditReport[]): AuditTraffic[] {
  const byKey = new Map<string, AuditTraffic>();
  for (const t of reports.flatMap((r) => r.traffic ?? [])) {
    const key = `${t.kind}\u0000${t.statement}`;
    const known = byKey.get(key);
    if (known === undefined) byKey.set(key, { ...t, sources: [...t.sources] });
    else {
      known.count += t.count;
      known.sources.push(...t.sources.slice(0, Math.max(0, MAX_SOURCES - known.sources.length)));
    }
  }
  return [...byKey.values()];
}

function sum(reports: readonly AuditReport[], of: (r: AuditReport) => number): number {
  return reports.reduce((n, r) => n + of(r), 0);
}

/** One pooler for all: findings joined with different poolers cannot be added up. */
function mergedPooler(reports: readonly AuditReport[]): AuditReport['pooler'] {
  const first = reports[0]!.pooler;
  const outcomes: Record<string, string | null> = {};
  for (const report of reports) {
    const p = report.pooler;
    if (p.basis !== first.basis || p.name !== first.name)
      throw new PooltestError(
        'AUDIT_INPUT',
        `--merge: the reports were joined with different poolers (${first.basis} ${first.name}, ${p.basis} ${p.name}); audit them with the same --report or --target`,
      );
    for (const [id, outcome] of Object.entries(p.outcomes)) {
      if (id in outcomes && outcomes[id] !== outcome)
        throw new PooltestError(
          'AUDIT_INPUT',
          `--merge: the reports disagree on what ${first.name} does in ${id} (${String(outcomes[id])}, ${String(outcome)})`,
        );
      outcomes[id] = outcome;
    }
  }
  return { ...first, outcomes };
}

/** Samples by their text, first reports first; distinct texts as far as the samples tell. */
function mergedUnparsed(reports: readonly AuditReport[]): AuditReport['unparsed'] {
  const samples = new Map<string, UnparsedSample>();
  const seen = new Set<string>();
  let count = 0;
  let distinct = 0;
  for (const report of reports) {
    const u = report.unparsed;
    count += u.count;
    // When every distinct text is a sample, the ones an earlier report had are known.
    const complete = u.distinct === u.samples.length;
    let shared = 0;
    for (const s of u.samples) {
      const key = `${s.statement}\u0000${s.error}`;
      if (seen.has(key)) shared++;
      seen.add(key);
      const kept = samples.get(key);
      if (kept !== undefined) kept.count += s.count;
      else if (samples.size < MAX_UNPARSED_SAMPLES) samples.set(key, { ...s });
    }
    distinct += u.distinct - (complete ? shared : 0);
  }
  return { count, distinct: Math.min(distinct, MAX_UNPARSED_DISTINCT), samples: [...samples.values()] };
}

/**
 * The reports' own warnings (about their inputs), then the derived ones made again for the
 * merge, in the order the audit writes them.
 */
function mergedWarnings(
  reports: readonly AuditReport[],
  checks: readonly AuditCheckId[],
  unparsed: AuditReport['unparsed'],
): string[] {
  const missing = new Map(AUDIT_CHECKS.map((c) => [missingCheckWarning(c.id), c.id]));
  const stats = statsNamesWarning();
  const own: string[] = [];
  const missingChecks = new Set<AuditCheckId>();
  for (const report of reports) {
    const derivedUnparsed = unparsedWarning(report.unparsed);
    for (const w of report.warnings) {
      const id = missing.get(w);
      if (id !== undefined) missingChecks.add(id);
      else if (w !== stats && w !== derivedUnparsed) own.push(w);
    }
  }
  const out = [...own, ...checks.filter((id) => missingChecks.has(id)).map(missingCheckWarning)];
  const kinds = new Set(reports.flatMap((r) => r.inputs.map((i) => i.kind)));
  if (kinds.has('stats') && !kinds.has('log')) out.push(stats);
  if (unparsed.count > 0) out.push(unparsedWarning(unparsed));
  return out;
}
