/**
 * The terminal view of a report: what was discovered, then one row per check (check, outcome,
 * expected, verdict), grouped by severity, with a line of evidence and a line of advice beneath.
 * Colour comes from chalk and is off when NO_COLOR is set, when --no-color is given, or when
 * output is not a TTY.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { Discovery, Report, Verdict } from '../engine/types.js';
import { poolerName, targetText } from './report-text.js';
import { groupBySeverity } from './severity.js';
import { stepLine } from './step-text.js';
import { cut, oneLine, pad, wrap } from './terminal-text.js';

export interface TerminalOptions {
  color: boolean;
  /** Print the steps (session, backend, SQL, result) of every check. */
  verbose?: boolean;
  /** Terminal width used to cut long lines. */
  width?: number;
}

/** Colour on a TTY unless --no-color or NO_COLOR says otherwise; FORCE_COLOR turns it on anywhere. */
export function colorWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTty;
}

/** Two lines: what discovery found (mode, pool, server, pooler), then the facts behind the mode. */
export function renderDiscovery(d: Omit<Discovery, 'steps'>, c: ChalkInstance): string {
  const pooler = poolerName(d.pooler) ?? 'not identified';
  const pool = d.poolSize !== null ? String(d.poolSize) : `no limit up to ${d.poolBound}`;
  return [
    `${c.bold('Discovery')}  mode ${c.bold(d.mode)}  pool ${pool}  server ${d.serverVersion}  pooler ${pooler}`,
    c.dim(`  shared between connected clients: ${yes(d.sharedAcrossClients)}; client keeps its backend: ${yes(d.clientKeepsBackend)}; backends reused after disconnect: ${yes(d.reuseAfterDisconnect)}; transaction blocks: ${d.transactionBlocks}; round trip ${d.rttMs} ms, wait bound ${d.waitBoundMs} ms`),
  ].join('\n');
}

/** The full report: header, discovery, profile, checks grouped by severity, sweep and summary. */
export function renderReport(report: Report, opts: TerminalOptions): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = opts.width ?? 100;
  const lines: string[] = [];
  lines.push(`${c.bold('pooltest')} ${report.tool.version}  target ${targetText(report.target)}  run ${report.runId}`);
  lines.push(renderDiscovery(report.discovery, c));
  if (opts.verbose) lines.push(...report.discovery.notes.map((n) => c.dim(`  note: ${n}`)));
  // Findings about the server (a dead run's stale backends) are shown without --verbose too.
  else lines.push(...report.discovery.notes.filter((n) => n.startsWith('server finding:')).map((n) => wrap(`  ${n}`, width, 4)));
  lines.push(report.profile ? `${c.bold('Profile')}    ${report.profile.name}: ${report.profile.title}` : `${c.bold('Profile')}    none: observations only (use --profile to assert)`);
  lines.push('');
  const idWidth = Math.max(5, ...report.checks.map((r) => r.id.length));
  lines.push(c.bold(`${pad('CHECK', idWidth)}  ${pad('OUTCOME', 12)}  ${pad('EXPECTED', 12)}  VERDICT`));
  for (const group of groupBySeverity(report.checks)) {
    lines.push(c.bold.underline(`${group.severity} (${group.checks.length})`));
    for (const r of group.checks) {
      lines.push(`${pad(r.id, idWidth)}  ${pad(r.outcome ?? '-', 12)}  ${pad(r.expected ?? '-', 12)}  ${verdictText(r.verdict, c)}`);
      lines.push(c.dim(wrap(`    evidence: ${r.evidence}`, width, 14)));
      if (r.verdict !== 'pass' && r.reason !== r.evidence) lines.push(c.yellow(wrap(`    why:      ${r.reason}`, width, 14)));
      if (r.advice) lines.push(c.cyan(wrap(`    advice:   ${r.advice}`, width, 14)));
      if (opts.verbose) lines.push(...r.steps.map((s) => cut(`     ${stepLine(s)}`, width + 60)));
    }
  }
  lines.push('');
  lines.push(...closingLines(report, c));
  return lines.join('\n') + '\n';
}

/**
 * `--quiet`: only what a CI log needs when something is wrong (one line per failed check,
 * the sweep if it was dirty) and the summary line, which is always printed.
 */
export function renderQuiet(report: Report, opts: TerminalOptions): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const failed = report.checks.filter((r) => r.verdict === 'fail');
  const lines = failed.map((r) => `${c.red.bold('FAIL')} ${r.id}: observed ${r.outcome ?? '-'}, expected ${r.expected ?? '-'}: ${oneLine(r.reason)}`);
  return [...lines, ...closingLines(report, c)].join('\n') + '\n';
}

function closingLines(report: Report, c: ChalkInstance): string[] {
  const lines: string[] = [];
  if (report.sweep) {
    lines.push(report.sweep.clean
      ? c.green(`Sweep: clean (${report.sweep.backendsVisited.length} backend(s) visited via ${report.sweep.via.join(' and ')})`)
      : c.red(oneLine(`Sweep: DIRTY - pooltest left state behind: ${report.sweep.leftovers.join('; ')}`)));
  }
  const s = report.summary;
  lines.push(`${c.bold('Summary')}  ${s.total} checks: ${c.green(`${s.pass} pass`)}, ${c.red(`${s.fail} fail`)}, ${c.yellow(`${s.inconclusive} inconclusive`)}, ${s.skipped} skipped  (${(report.durationMs / 1000).toFixed(1)} s)  exit ${s.exitCode}`);
  return lines;
}

/** A verdict as a coloured word: FAIL stands out, skipped fades. */
export function verdictText(v: Verdict, c: ChalkInstance): string {
  switch (v) {
    case 'pass':
      return c.green('pass');
    case 'fail':
      return c.red.bold('FAIL');
    case 'inconclusive':
      return c.yellow('inconclusive');
    default:
      return c.dim('skipped');
  }
}

function yes(b: boolean): string {
  return b ? 'yes' : 'no';
}
