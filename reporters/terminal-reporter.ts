/**
 * The terminal view of a report: what was discovered, then one row per check (check, outcome,
 * expected, verdict), grouped by severity, with a line of evidence and a line of advice beneath.
 * Colour comes from chalk and is off when NO_COLOR is set, when --no-color is given, or when
 * output is not a TTY.
 */
import { plural, sweepText } from './sweep-text.js';
import { Chalk, type ChalkInstance } from 'chalk';
import { describeWireFinding } from '../engine/discovery/probes.js';
import type { CheckResult, Discovery, Report, Verdict } from '../engine/types.js';
import { poolerName, poolText, targetText } from './report-text.js';
import { groupBySeverity } from './severity.js';
import { stepLine } from './step-text.js';
import { cut, oneLine, outcomeWidth, pad, terminalSafe, wrap } from './terminal-text.js';
import { observedReading, verdictPhrase } from './verdict-text.js';
import { countsLine, summaryCounts, type CountPart } from './summary-counts.js';

export interface TerminalOptions {
  color: boolean;
  /** Print the steps (session, backend, SQL, result) of every check. */
  verbose?: boolean;
  /** Terminal width used to cut long lines. */
  width?: number;
}

// Where callers have always found it (terminal-env.ts holds it, free of the renderers' imports).
export { colorWanted } from './terminal-env.js';

/**
 * Two lines, folded at `width`: what discovery found (mode, pool and how it was counted, server,
 * pooler), then the facts behind the mode.
 */
export function renderDiscovery(unsafe: Omit<Discovery, 'steps'>, c: ChalkInstance, width = 120): string {
  const d = terminalSafe(unsafe);
  const pooler = poolerName(d.pooler) ?? 'not identified';
  const pool = poolText(d);
  const facts = [
    `shared between connected clients: ${yes(d.sharedAcrossClients)}`,
    `client keeps its backend: ${yes(d.clientKeepsBackend)}`,
    `backends reused after disconnect: ${yes(d.reuseAfterDisconnect)}`,
    `transaction blocks: ${d.transactionBlocks}`,
    `round trip ${d.rttMs} ms, wait bound ${d.waitBoundMs} ms`,
  ];
  // Folded before the words are made bold, so that colour codes are not counted as width.
  const head = wrap(`Discovery  mode ${d.mode}  pool ${pool}  server ${d.serverVersion}  pooler ${pooler}`, width, 11)
    .replace(/^Discovery/, c.bold('Discovery'))
    .replace(`mode ${d.mode}`, `mode ${c.bold(d.mode)}`);
  return [head, c.dim(wrap(`  ${facts.join('; ')}`, width, 4))].join('\n');
}

/** The full report: header, discovery, profile, checks grouped by severity, sweep and summary. */
export function renderReport(unsafe: Report, opts: TerminalOptions): string {
  // Evidence, notes, names and outcomes came from the target or a report file.
  const report = terminalSafe(unsafe);
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = opts.width ?? 100;
  const lines: string[] = [];
  lines.push(`${c.bold('pooltest')} ${report.tool.version}  target ${targetText(report.target)}  run ${report.runId}`);
  lines.push(renderDiscovery(report.discovery, c, width));
  if (opts.verbose) lines.push(...report.discovery.notes.map((n) => c.dim(`  note: ${n}`)));
  // Findings about the server (a dead run's stale backends) are shown without --verbose too.
  else
    lines.push(
      ...report.discovery.notes.filter((n) => n.startsWith('server finding:')).map((n) => wrap(`  ${n}`, width, 4)),
    );
  // A malformed reply to an optional probe is a finding about the pooler: always shown.
  lines.push(
    ...(report.discovery.wireFindings ?? []).map((f) => wrap(`  wire finding: ${describeWireFinding(f)}`, width, 4)),
  );
  lines.push(
    report.profile
      ? `${c.bold('Profile')}    ${report.profile.name}: ${report.profile.title}`
      : `${c.bold('Profile')}    none: observations only (use --profile to assert)`,
  );
  lines.push('');
  const idWidth = Math.max(5, ...report.checks.map((r) => r.id.length));
  const w = outcomeWidth(
    'EXPECTED',
    report.checks.flatMap((r) => [r.outcome, r.expected]),
  );
  lines.push(c.bold(`${pad('CHECK', idWidth)}  ${pad('OUTCOME', w)}  ${pad('EXPECTED', w)}  VERDICT`));
  for (const group of groupBySeverity(report.checks)) {
    lines.push(c.bold.underline(`${group.severity} (${group.checks.length})`));
    for (const r of group.checks) {
      lines.push(
        `${pad(r.id, idWidth)}  ${pad(r.outcome ?? '-', w)}  ${pad(r.expected ?? '-', w)}  ${verdictText(r.verdict, c, r)}`,
      );
      lines.push(c.dim(wrap(`    evidence: ${r.evidence}`, width, 14)));
      if (r.verdict !== 'pass' && r.verdict !== 'observed' && r.reason !== r.evidence)
        lines.push(c.yellow(wrap(`    why:      ${r.reason}`, width, 14)));
      if (r.verdict === 'fail') lines.push(c.yellow(wrap(`    expected: ${expectationText(r)}`, width, 14)));
      if (r.advice) lines.push(c.cyan(wrap(`    advice:   ${r.advice}`, width, 14)));
      if (opts.verbose) lines.push(...r.steps.map((s) => cut(`     ${stepLine(s)}`, width + 60)));
    }
  }
  lines.push('');
  lines.push(...closingLines(report, c, true));
  return lines.join('\n') + '\n';
}

/**
 * `--quiet`: only what a CI log needs when something is wrong (one line per failed check,
 * the sweep if it was dirty) and the summary line, which is always printed.
 */
export function renderQuiet(unsafe: Report, opts: TerminalOptions): string {
  const report = terminalSafe(unsafe);
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const strict = report.summary.strict === true;
  const failed = report.checks.filter((r) => r.verdict === 'fail' || (strict && r.verdict === 'inconclusive'));
  // An observed outcome that breaks an application is no failure (nothing was asserted), but
  // --quiet must not hide it either: one line each, in the words of the full report.
  const breaking = report.checks.filter((r) => r.verdict === 'observed' && observedReading(r) === 'breaks');
  const lines = failed.map((r) =>
    r.verdict === 'fail'
      ? `${c.red.bold('FAIL')} ${r.id}: observed ${r.outcome ?? '-'}, expected ${r.expected ?? '-'}: ${oneLine(r.reason)}`
      : `${c.red.bold('FAIL')} ${r.id}: inconclusive under --strict: ${oneLine(r.reason)}`,
  );
  const observed = breaking.map(
    (r) => `${c.red(verdictPhrase(r))} ${r.id}: ${r.outcome ?? '-'}, nothing asserted: ${oneLine(r.evidence)}`,
  );
  return [...lines, ...observed, ...closingLines(report, c, false)].join('\n') + '\n';
}

/** Sweep, summary, and what the exit code leaves out; `full` adds the note on observations. */
function closingLines(report: Report, c: ChalkInstance, full: boolean): string[] {
  const lines: string[] = [];
  if (report.sweep) {
    const { state, text } = sweepText(report.sweep);
    lines.push(
      state === 'clean' ? c.green(text) : state === 'unknown' ? c.yellow(oneLine(text)) : c.red(oneLine(text)),
    );
  }
  const s = report.summary;
  const interrupted = s.interrupted ? `, ${c.yellow.bold('interrupted')}` : '';
  // The words of every renderer (summary-counts.ts), counted from the rows above; coloured here.
  const counted = summaryCounts(report.checks);
  const paint: Partial<Record<CountPart['kind'], (t: string) => string>> = {
    breaks: counted.breaking > 0 ? c.red.bold : c.green,
    pass: c.green,
    fail: c.red,
    inconclusive: c.yellow,
  };
  const counts =
    countsLine(counted, (p) => (paint[p.kind] ?? String)(p.text)) +
    `${s.strict === true ? ' (strict)' : ''}${interrupted}`;
  const observed = report.checks.filter((r) => r.verdict === 'observed').length;
  const seconds = (report.durationMs / 1000).toFixed(1);
  lines.push(`${c.bold('Summary')}  ${plural(s.total, 'check')}: ${counts}  (${seconds} s)  exit ${s.exitCode}`);
  // Interrupted, the exit is 130 whatever --strict says: the advice is to run again.
  if (s.inconclusive > 0 && s.interrupted)
    lines.push(
      c.yellow(`  the run was interrupted: run it again for an outcome of the ${s.inconclusive} inconclusive check(s)`),
    );
  else if (s.strict === true && report.checks.length > 0 && report.checks.every((r) => r.verdict === 'skipped'))
    lines.push(
      c.red(`  --strict: every check was skipped, so the run proved nothing (exit 1); each skip says why above`),
    );
  else if (s.inconclusive > 0 && s.strict !== true)
    lines.push(
      c.yellow(
        `  ${s.inconclusive} inconclusive check(s) proved nothing and do not change the exit code; --strict makes them fail the run`,
      ),
    );
  if (full && observed > 0 && report.profile === null) {
    const breaking = report.checks.filter((r) => r.verdict === 'observed' && observedReading(r) === 'breaks').length;
    lines.push(
      c.dim(
        `  observed: nothing was asserted (no --profile or --expect); ${breaking} observed outcome(s) break an application written for a direct connection`,
      ),
    );
  }
  return lines;
}

/**
 * A verdict as a coloured word: FAIL stands out, skipped fades. An observation (nothing
 * expected) is never green: with the check at hand it says whether the outcome breaks an
 * application, and how badly (the check's severity).
 */
export function verdictText(v: Verdict, c: ChalkInstance, check?: Pick<CheckResult, 'outcome' | 'severity'>): string {
  switch (v) {
    case 'pass':
      return c.green('pass');
    case 'observed': {
      const phrase = verdictPhrase({
        verdict: v,
        outcome: check?.outcome ?? null,
        severity: check?.severity ?? 'correctness',
      });
      const reading = check ? observedReading(check) : 'unknown';
      return reading === 'breaks' ? c.red(phrase) : reading === 'fine' ? c.dim(phrase) : c.yellow(phrase);
    }
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

/**
 * Where a failed expectation came from, and whether anyone here ever saw it hold: a failure
 * against a documented expectation nobody observed may be the documentation's error.
 */
export function expectationText(
  r: Pick<Report['checks'][number], 'expected' | 'expectedRef' | 'expectedBasis'>,
): string {
  const how =
    r.expectedBasis === 'observed'
      ? 'observed by pooltest on its fixtures'
      : r.expectedBasis
        ? `${r.expectedBasis}, never observed by pooltest`
        : 'basis not stated';
  return `${r.expected ?? '-'} (${how}) per ${r.expectedRef ?? 'no reference'}`;
}
