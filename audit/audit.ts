/**
 * The audit as a library call: read every input, classify every statement, group findings,
 * join them with what the pooler does. `pooltest audit` is a thin shell around {@link audit}.
 */
import { CATALOGUE } from '../suites/catalogue.js';
import { TRAFFIC } from './protocol-traffic.js';
import type { TrafficTally } from './audit-collector.js';
import { PooltestError } from '../engine/record/errors.js';
import { CLAIMS } from '../suites/catalogue.js';
import { AuditCollector, type FindingTally } from './audit-collector.js';
import { AUDIT_CHECKS, auditCheck, checkPriority, settingAdvice } from './audit-checks.js';
import {
  AUDIT_SCHEMA_VERSION,
  type AuditCheckId,
  type AuditCleanup,
  type AuditFinding,
  type AuditReport,
  type InputSummary,
  type AuditTraffic,
} from './audit-types.js';
import { auditLogFile } from './log-input.js';
import type { ProgressSink } from './read-progress.js';
import type { LogFormat } from './log-format.js';
import {
  behaviourFromReportFile,
  joinCheck,
  poolerSummary,
  settingOfWhat,
  type PoolerBehaviour,
} from './pooler-behaviour.js';
import { resolveBehaviour } from './pooler-source.js';
import { resultsOfDrivers, withDriver } from './driver-attribution.js';
import { auditSqlFile } from './sql-file-input.js';
import { loadParser } from '../common/sql-parser.js';
import { auditStats } from './stats-input.js';
import type { TargetRefinements } from './target-run.js';

/** What to audit and against which pooler behaviour. */
export interface AuditOptions extends TargetRefinements {
  /** SQL files (migrations, scripts). */
  sql?: string[];
  /** PostgreSQL server logs; `-` is standard input. */
  logs?: string[];
  /** Default `auto`. */
  logFormat?: LogFormat | 'auto';
  /** A direct connection URL to read pg_stat_statements from. */
  stats?: string;
  /** Audit only the visible pg_stat_statements rows when some are hidden from the role. */
  statsPartial?: boolean;
  /** A pooltest JSON report of the pooler. */
  report?: string;
  /** A pooler to run the relevant checks against now. */
  target?: string;
  /** The PostgreSQL behind `target`, for the sweep of the checks run against it. */
  direct?: string;
  /** Bound on each network step (connect, query), ms. Default 10 000. */
  timeoutMs?: number;
  /** Longer statements are reported as unparsed instead of parsed. Default 1 MiB. */
  maxStatementBytes?: number;
  /** Standard input for `--log -`. */
  stdin?: NodeJS.ReadableStream;
  /** Progress while logs are read (a terminal line; see audit/read-progress.ts). */
  progress?: ProgressSink;
  /** Threads per log file (audit/log-parallel.ts); default one per core for a large file. */
  jobs?: number;
  /** Bytes per read of a log (tests make it small so that statements cross reads). */
  chunkBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_STATEMENT_BYTES = 1024 * 1024;

/**
 * Runs an audit. Throws a {@link PooltestError} when it cannot run (bad input, unreachable
 * stats server, pg_stat_statements unavailable); findings and unparsed statements are results,
 * not errors.
 */
export async function audit(options: AuditOptions): Promise<AuditReport> {
  const started = Date.now();
  const sql = options.sql ?? [];
  const logs = options.logs ?? [];
  if (sql.length === 0 && logs.length === 0 && options.stats === undefined) {
    throw new PooltestError('BAD_ARGUMENTS', 'nothing to audit: give --sql FILE..., --log FILE or --stats URL');
  }
  if (options.report !== undefined && options.target !== undefined) {
    throw new PooltestError('BAD_ARGUMENTS', '--report and --target both say what the pooler does: give one of them');
  }
  const maxStatementBytes = options.maxStatementBytes ?? DEFAULT_MAX_STATEMENT_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Read the report first: a typo in its path should not cost a multi-gigabyte log read.
  const fromReport = options.report !== undefined ? await behaviourFromReportFile(options.report) : null;
  await loadParser();
  const collector = new AuditCollector();
  const inputs: InputSummary[] = [];
  const warnings: string[] = [];
  for (const file of sql) {
    const summary = await auditSqlFile(file, collector, maxStatementBytes, options.stdin);
    inputs.push(summary);
    // As for an empty --log: a pass over nothing must not read as "nothing relies on session state".
    if (summary.statements === 0) warnings.push(`--sql ${summary.name}: no statements in it`);
  }
  for (const file of logs) {
    const result = await auditLogFile(file, collector, {
      format: options.logFormat ?? 'auto',
      maxStatementBytes,
      ...(options.stdin ? { stdin: options.stdin } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
      ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
      ...(options.chunkBytes !== undefined ? { chunkBytes: options.chunkBytes } : {}),
    });
    inputs.push(result.summary);
    warnings.push(...result.warnings);
  }
  if (options.stats !== undefined) {
    const result = await auditStats(options.stats, collector, {
      timeoutMs,
      allowHidden: options.statsPartial === true,
    });
    inputs.push(result.summary);
    warnings.push(...result.warnings);
  }
  const tallies = collector.tallies();
  const overflow = { ...collector.overflow };
  const overflowChecks = Object.keys(overflow) as AuditCheckId[];
  const checks = [...new Set([...tallies.map((t) => t.check), ...overflowChecks])].sort(
    (a, b) => checkPriority(a) - checkPriority(b),
  );
  const behaviour = await resolveBehaviour(fromReport, { ...options, timeoutMs }, checks);
  for (const id of checks) {
    if (behaviour.basis !== 'typical' && !behaviour.outcomes.has(id)) warnings.push(missingCheckWarning(id));
  }
  const driverResults = await resultsOfDrivers(options, tallies);
  const findings = tallies.map((t) => withDriver(toFinding(t, behaviour), driverResults));
  findings.sort((a, b) => checkPriority(a.check) - checkPriority(b.check) || b.count - a.count);
  const breaking = findings.filter((f) => f.breaks === true);
  // Findings past the kept bound still count towards the exit code.
  const overflowBreaking = overflowChecks
    .filter((id) => joinCheck(behaviour, id).breaks === true)
    .reduce((n, id) => n + (overflow[id] ?? 0), 0);
  const found = new Set(findings.map((f) => f.check));
  const cleanups = collector
    .cleanupTallies()
    .map((t): AuditCleanup => ({ ...t, source: t.sources[0] ?? '', paired: t.undoes.some((id) => found.has(id)) }));
  cleanups.sort((a, b) => Number(b.paired) - Number(a.paired) || b.count - a.count);
  if (options.stats !== undefined && logs.length === 0) warnings.push(statsNamesWarning());
  const unparsed = collector.unparsedSummary();
  const known = new Set<string>(CATALOGUE.map((c) => c.id));
  if (unparsed.count > 0) warnings.push(unparsedWarning(unparsed));
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    tool: { name: 'pooltest', command: 'audit' },
    generatedAt: new Date(started).toISOString(),
    inputs,
    pooler: poolerSummary(behaviour, checks.length > 0 ? checks : AUDIT_CHECKS.map((c) => c.id)),
    summary: {
      statements: collector.statements,
      parsedTexts: collector.classifier.parsedTexts,
      findings: findings.length,
      cleanups: cleanups.length,
      breaking: breaking.length,
      breakingCount: breaking.reduce((n, f) => n + f.count, 0) + overflowBreaking,
      unparsed: unparsed.count,
      durationMs: Date.now() - started,
    },
    findings,
    cleanups,
    overflow,
    unparsed,
    warnings,
    traffic: collector.trafficTallied().map((t) => auditTraffic(t, known)),
  };
}

/** A counted COPY as the report lists it, with the protocol check it depends on. */
function auditTraffic(t: TrafficTally, known: ReadonlySet<string>): AuditTraffic {
  const meaning = TRAFFIC[t.kind];
  return {
    check: meaning.check,
    checkInCatalogue: known.has(meaning.check),
    kind: t.kind,
    what: meaning.what,
    statement: t.statement,
    count: t.count,
    source: t.sources[0] ?? '',
    sources: t.sources,
    depends: meaning.depends,
    advice: meaning.advice,
  };
}

/*
 * The warnings the audit derives from its results rather than from one input: `audit --merge`
 * (audit-merge.ts) derives them again for the merged report, so they are written once here.
 */

/** A check with findings that the pooler's report or run does not cover. */
export function missingCheckWarning(id: AuditCheckId): string {
  return `${id} is not in the pooler's results: what it does there is unknown`;
}

/** pg_stat_statements audited without any log: named protocol statements cannot show. */
export function statsNamesWarning(): string {
  const named = CLAIMS.checkOfStatement('protocol named statement');
  const inLogs = "server logs (--log with log_statement = 'all')";
  return `pg_stat_statements records no statement names: a driver's named prepared statements (${named}) show only in ${inLogs}`;
}

/** Statements that could not be classified (the report's `unparsed`). */
export function unparsedWarning(unparsed: { count: number; distinct: number }): string {
  return `${unparsed.count} statement(s) could not be classified (${unparsed.distinct} distinct): see "unparsed"`;
}

/** A counted finding joined with what the pooler does in its check. */
function toFinding(t: FindingTally, behaviour: PoolerBehaviour): AuditFinding {
  // A SET of a setting judged on its own (TimeZone in session/tracked-parameter) gets its own outcome.
  const joined = joinCheck(behaviour, t.check, settingOfWhat(t.what));
  const info = auditCheck(t.check);
  return {
    check: t.check,
    title: info.title,
    statement: t.statement,
    normalized: t.normalized,
    what: t.what,
    certain: t.certain,
    alsoChecks: [...t.alsoChecks],
    count: t.count,
    source: t.sources[0] ?? '',
    sources: t.sources,
    outcome: joined.outcome,
    parameter: joined.parameter,
    basis: behaviour.basis,
    breaks: joined.breaks,
    advice: settingAdvice(info, joined.parameter, joined.breaks) ?? info.advice,
  };
}
