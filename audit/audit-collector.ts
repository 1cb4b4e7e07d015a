/**
 * Where every input's statements end up: classified (through the cache), counted, and grouped
 * into findings by check and normalized text, so `SELECT pg_advisory_lock(1)` and
 * `SELECT pg_advisory_lock(2)` are one finding seen twice. Everything kept is bounded (findings,
 * sources per finding, unparsed samples), so memory does not grow with the input's size.
 */
import { createHash } from 'node:crypto';
import { CLAIMS } from './audit-knowledge.js';
import type { AuditCheckId, Hazard, UnparsedSample, UnparsedSummary } from './audit-types.js';
import { normalizeStatement } from '../common/sql-parser.js';
import {
  StatementClassifier,
  type CountingPlan,
  type NotablePart,
  type TextClassification,
} from './statement-classifier.js';

/** Turns a character offset in the consumed text into a source label (`file.sql:12`). */
export type Locate = (offset: number) => string;

/** A finding while it is being counted. */
export interface FindingTally {
  check: AuditCheckId;
  what: string;
  certain: boolean;
  alsoChecks: Set<AuditCheckId>;
  statement: string;
  normalized: string;
  count: number;
  sources: string[];
}

/** A statement whose traffic a protocol check concerns (a COPY), while it is being counted. */
export interface TrafficTally {
  kind: 'copy-in' | 'copy-out';
  statement: string;
  count: number;
  sources: string[];
}

/** A cleanup statement while it is being counted. */
export interface CleanupTally {
  undoes: AuditCheckId[];
  what: string;
  statement: string;
  normalized: string;
  count: number;
  sources: string[];
}

export const MAX_FINDINGS = 10_000;
export const MAX_SOURCES = 5;
export const MAX_UNPARSED_SAMPLES = 50;
export const MAX_UNPARSED_DISTINCT = 100_000;
/** Statements are shown up to this many characters (the length is said when cut). */
const MAX_SHOWN_CHARS = 2_000;

/**
 * A collector's contents as plain data: what a worker that read a chunk of a log sends back,
 * to be added to the main collector in the chunks' order (see {@link AuditCollector.absorb}).
 */
export interface CollectorState {
  statements: number;
  parsedTexts: number;
  screenedTexts: number;
  overflow: Partial<Record<AuditCheckId, number>>;
  findings: [string, FindingTally][];
  cleanups: [string, CleanupTally][];
  samples: [string, UnparsedSample][];
  /** Occurrences per distinct unparsed text (by hash), as far as the bound allows. */
  unparsedHashes: [string, number][];
  unparsedCount: number;
  traffic: [string, TrafficTally][];
}

/** Collects the statements of all inputs into findings and unparsed samples. */
export class AuditCollector {
  readonly classifier = new StatementClassifier();
  private readonly maxFindings: number;
  private readonly maxSamples: number;

  /**
   * @param chunk a worker's collector for a chunk of a log keeps twice the bounds: up to one
   *   bound's worth of what it finds may already be known from earlier chunks, and the rest
   *   must still fill the merged bound exactly as one collector would have.
   */
  constructor(chunk = false) {
    this.maxFindings = chunk ? 2 * MAX_FINDINGS : MAX_FINDINGS;
    this.maxSamples = chunk ? 2 * MAX_UNPARSED_SAMPLES : MAX_UNPARSED_SAMPLES;
  }

  /** Statement occurrences examined (calls for pg_stat_statements rows). */
  statements = 0;
  /** Findings per check that did not fit in the kept set: counted, not listed. */
  readonly overflow: Partial<Record<AuditCheckId, number>> = {};
  private readonly findings = new Map<string, FindingTally>();
  private readonly cleanups = new Map<string, CleanupTally>();
  private readonly trafficTallies = new Map<string, TrafficTally>();
  private readonly samples = new Map<string, UnparsedSample>();
  private readonly unparsedHashes = new Map<string, number>();
  private unparsedCount = 0;

  /** Classifies `sql` (one or more statements) seen `count` times. */
  consume(sql: string, count: number, locate: Locate): void {
    this.record(sql, this.classifier.classify(sql), count, locate);
  }

  /** Counts an already classified text (see {@link StatementClassifier.classify}). */
  record(sql: string, result: TextClassification, count: number, locate: Locate): void {
    if (!result.ok) {
      this.statements += count;
      this.unparsed(sql, locate(Math.max(result.position, 0)), result.error, count);
      return;
    }
    this.statements += result.statements * count;
    for (const part of result.notable) {
      if (part.problem !== null) this.unparsed(part.text, locate(part.offset), part.problem, count);
      if (part.traffic !== undefined) this.addTraffic(part.traffic, part.text, count, locate(part.offset));
      // Worked out once per classified text (the classification is cached, the plan with it):
      // a log repeats its hazardous texts thousands of times.
      const plan = (part.plan ??= planOf(part));
      const primary = plan.primary;
      if (primary !== undefined) {
        // Seen before with all its sources kept: only counts change, no source is made.
        const known = this.findings.get(plan.findingKey);
        if (known !== undefined && known.sources.length >= MAX_SOURCES) {
          known.count += count;
          for (const id of plan.also) known.alsoChecks.add(id);
        } else
          this.addFinding(
            primary.check,
            primary.what,
            primary.certain,
            plan.also,
            part.text,
            part.normalized,
            count,
            locate(part.offset),
          );
      }
      if (plan.cleanup.length > 0) {
        const known = this.cleanups.get(plan.cleanupKey);
        if (known !== undefined && known.sources.length >= MAX_SOURCES) known.count += count;
        else this.addCleanup(plan.cleanup, part.text, part.normalized, count, locate(part.offset));
      }
    }
  }

  /**
   * A driver's named prepared statement seen in a log (`execute NAME: ...` counts 1; `parse`
   * and `bind` lines count 0 and only make sure it is reported). Grouped by the statement's text:
   * drivers reuse names (`S_1`) for different statements on different connections.
   */
  namedStatement(name: string, text: string, count: number, source: string): void {
    // Long texts are keyed by their hash: the map holds at most MAX_FINDINGS keys, not texts.
    const check = CLAIMS.checkOfStatement('protocol named statement');
    const key = `${check}\u0000${text.length > 256 ? createHash('sha1').update(text).digest('base64') : text}`;
    let tally = this.findings.get(key);
    if (tally === undefined) {
      if (this.findings.size >= this.maxFindings) {
        this.overflow[check] = (this.overflow[check] ?? 0) + count;
        return;
      }
      // Normalized once per distinct text, when the finding is created: logs repeat the text.
      tally = {
        check,
        what: `named protocol statement "${name}"`,
        certain: true,
        alsoChecks: new Set(),
        statement: shown(text),
        normalized: shown(normalizeStatement(text)),
        count: 0,
        sources: [],
      };
      this.findings.set(key, tally);
    }
    tally.count += count;
    if (tally.sources.length < MAX_SOURCES) tally.sources.push(source);
  }

  /** Records a statement that could not be classified (parse error, too long, not analysed). */
  unparsed(sql: string, source: string, error: string, count: number): void {
    this.unparsedCount += count;
    const hash = createHash('sha1').update(sql).digest('base64');
    const seen = this.unparsedHashes.get(hash);
    if (seen !== undefined) this.unparsedHashes.set(hash, seen + count);
    else if (this.unparsedHashes.size < MAX_UNPARSED_DISTINCT) this.unparsedHashes.set(hash, count);
    const sample = this.samples.get(hash);
    if (sample !== undefined) sample.count += count;
    else if (this.samples.size < this.maxSamples)
      this.samples.set(hash, { statement: shown(sql), source, error, count });
  }

  /** Counts occurrences that were never classified at all (only counted). */
  countStatements(count: number): void {
    this.statements += count;
  }

  /** Everything collected, as plain data (see {@link CollectorState}). */
  snapshot(): CollectorState {
    return {
      statements: this.statements,
      parsedTexts: this.classifier.parsedTexts,
      screenedTexts: this.classifier.screenedTexts,
      overflow: this.overflow,
      findings: [...this.findings],
      cleanups: [...this.cleanups],
      samples: [...this.samples],
      unparsedHashes: [...this.unparsedHashes],
      unparsedCount: this.unparsedCount,
      traffic: [...this.trafficTallies],
    };
  }

  /**
   * Adds what a later part of the input collected, as if this collector had read it next:
   * counts add up, new findings and samples come after the known ones, sources and samples
   * stay within the same bounds.
   */
  absorb(part: CollectorState): void {
    this.statements += part.statements;
    this.classifier.parsedTexts += part.parsedTexts;
    this.classifier.screenedTexts += part.screenedTexts;
    for (const [id, n] of Object.entries(part.overflow) as [AuditCheckId, number][])
      this.overflow[id] = (this.overflow[id] ?? 0) + n;
    for (const [key, t] of part.findings) {
      const known = this.findings.get(key);
      if (known !== undefined) {
        known.count += t.count;
        for (const id of t.alsoChecks) known.alsoChecks.add(id);
        known.sources.push(...t.sources.slice(0, MAX_SOURCES - known.sources.length));
      } else if (this.findings.size >= this.maxFindings)
        this.overflow[t.check] = (this.overflow[t.check] ?? 0) + t.count;
      else this.findings.set(key, { ...t, alsoChecks: new Set(t.alsoChecks), sources: [...t.sources] });
    }
    for (const [key, t] of part.cleanups) {
      const known = this.cleanups.get(key);
      if (known !== undefined) {
        known.count += t.count;
        known.sources.push(...t.sources.slice(0, MAX_SOURCES - known.sources.length));
      } else if (this.cleanups.size < this.maxFindings) this.cleanups.set(key, { ...t, sources: [...t.sources] });
    }
    for (const [key, t] of part.traffic) {
      const known = this.trafficTallies.get(key);
      if (known !== undefined) {
        known.count += t.count;
        known.sources.push(...t.sources.slice(0, MAX_SOURCES - known.sources.length));
      } else if (this.trafficTallies.size < this.maxFindings)
        this.trafficTallies.set(key, { ...t, sources: [...t.sources] });
    }
    this.unparsedCount += part.unparsedCount;
    // Samples known here count the part's occurrences too; the part's own new ones follow.
    for (const [hash, n] of part.unparsedHashes) {
      const sample = this.samples.get(hash);
      if (sample !== undefined) sample.count += n;
      const seen = this.unparsedHashes.get(hash);
      if (seen !== undefined) this.unparsedHashes.set(hash, seen + n);
      else if (this.unparsedHashes.size < MAX_UNPARSED_DISTINCT) this.unparsedHashes.set(hash, n);
    }
    for (const [hash, sample] of part.samples)
      if (!this.samples.has(hash) && this.samples.size < this.maxSamples) this.samples.set(hash, { ...sample });
  }

  tallies(): FindingTally[] {
    return [...this.findings.values()];
  }

  cleanupTallies(): CleanupTally[] {
    return [...this.cleanups.values()];
  }

  trafficTallied(): TrafficTally[] {
    return [...this.trafficTallies.values()];
  }

  /** A COPY whose data crosses the pooler, keyed by kind and text (bounded like findings). */
  private addTraffic(kind: TrafficTally['kind'], text: string, count: number, source: string): void {
    const key = `${kind}\u0000${text.length > 256 ? createHash('sha1').update(text).digest('base64') : text}`;
    let tally = this.trafficTallies.get(key);
    if (tally === undefined) {
      if (this.trafficTallies.size >= this.maxFindings) return;
      tally = { kind, statement: shown(text), count: 0, sources: [] };
      this.trafficTallies.set(key, tally);
    }
    tally.count += count;
    if (tally.sources.length < MAX_SOURCES) tally.sources.push(source);
  }

  private addCleanup(hazards: Hazard[], text: string, normalized: string, count: number, source: string): void {
    const what = hazards[0]!.what;
    const key = cleanupKey(what, normalized);
    let tally = this.cleanups.get(key);
    if (tally === undefined) {
      // Bounded like findings; past the bound a cleanup is only not listed (it never breaks).
      if (this.cleanups.size >= this.maxFindings) return;
      tally = {
        undoes: [...new Set(hazards.map((h) => h.check))],
        what,
        statement: shown(text),
        normalized: shown(normalized),
        count: 0,
        sources: [],
      };
      this.cleanups.set(key, tally);
    }
    tally.count += count;
    if (tally.sources.length < MAX_SOURCES) tally.sources.push(source);
  }

  unparsedSummary(): UnparsedSummary {
    return { count: this.unparsedCount, distinct: this.unparsedHashes.size, samples: [...this.samples.values()] };
  }

  private addFinding(
    check: AuditCheckId,
    what: string,
    certain: boolean,
    also: AuditCheckId[],
    text: string,
    normalized: string,
    count: number,
    source: string,
  ): void {
    const key = findingKey(check, what, normalized);
    let tally = this.findings.get(key);
    if (tally === undefined) {
      if (this.findings.size >= this.maxFindings) {
        this.overflow[check] = (this.overflow[check] ?? 0) + count;
        return;
      }
      tally = {
        check,
        what,
        certain,
        alsoChecks: new Set(),
        statement: shown(text),
        normalized: shown(normalized),
        count: 0,
        sources: [],
      };
      this.findings.set(key, tally);
    }
    tally.count += count;
    for (const id of also) tally.alsoChecks.add(id);
    if (tally.sources.length < MAX_SOURCES) tally.sources.push(source);
  }
}

/**
 * How a notable part is counted. Cleanup (RESET, DEALLOCATE, an unlock...) is kept apart: it
 * is the other half of a finding, not a break of its own. The keys are those addFinding and
 * addCleanup file the part under.
 */
function planOf(part: NotablePart): CountingPlan {
  const breaking = part.hazards.filter((h) => h.cleanup !== true);
  const cleanup = part.hazards.filter((h) => h.cleanup === true);
  const [primary, ...rest] = breaking;
  return {
    primary,
    also: rest.map((h) => h.check),
    cleanup,
    findingKey: primary === undefined ? '' : findingKey(primary.check, primary.what, part.normalized),
    cleanupKey: cleanup.length === 0 ? '' : cleanupKey(cleanup[0]!.what, part.normalized),
  };
}

function findingKey(check: AuditCheckId, what: string, normalized: string): string {
  // `what` keeps apart what normalizing merges but matters: set_config('app.a', ...) and
  // set_config('app.b', ...) both normalize to set_config($1, $2, $3).
  return `${check}\u0000${what}\u0000${normalized}`;
}

function cleanupKey(what: string, normalized: string): string {
  return `${what}\u0000${normalized}`;
}

function shown(text: string): string {
  if (text.length <= MAX_SHOWN_CHARS) return text;
  return `${text.slice(0, MAX_SHOWN_CHARS)}... (${text.length} characters)`;
}
