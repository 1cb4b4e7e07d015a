/**
 * The terminal view of an audit: one block per check (what the pooler does, whether it
 * breaks, the fix), then its statements with counts and sources; unparsed statements and a
 * one-line summary at the end.
 */
import { driverText } from './driver-attribution.js';
import type { ChalkInstance } from 'chalk';
import type { AuditCleanup, AuditFinding, AuditReport, Breaks } from './audit-types.js';
import { groupByCheck } from './check-groups.js';
import { terminalSafe } from '../reporters/terminal-text.js';
import { oneLine } from '../common/display-text.js';
import { exitMeaning } from './exit-code.js';

/** Renders `report` for a terminal `width` columns wide. */
export function renderAuditTerminal(
  unsafe: AuditReport,
  c: ChalkInstance,
  width: number,
  opts: { failOnFindings?: boolean } = {},
): string {
  // Statements, sources and errors are the application's text: printable before they are laid out.
  const report = terminalSafe(unsafe);
  const out: string[] = [];
  const s = report.summary;
  // Each count says what it counts: a file is parsed as one text, logs once per distinct text.
  const occurrences = `${s.statements} statement occurrence(s) from ${report.inputs.length} input(s) (${countedAs(report)})`;
  const parsed = `${s.parsedTexts} text(s) parsed (one per SQL file, one per distinct log or stats text)`;
  out.push(`${c.bold('pooltest audit')}  ${occurrences}; ${parsed}`);
  out.push(
    c.dim(`pooler: ${report.pooler.name}${report.pooler.basis === 'typical' ? '  (no --report/--target given)' : ''}`),
  );
  if (report.findings.length === 0) out.push('', c.green('No statement relies on session state.'));
  for (const { info, findings, overflow } of groupByCheck(report)) {
    const first = findings[0];
    out.push('', `${c.bold(info.id)}  ${info.title}`);
    if (first !== undefined) out.push(`  ${behaviourLine(findings, c)}`);
    out.push(c.dim(`  fix: ${info.advice}`));
    const countWidth = Math.max(5, ...findings.map((f) => String(f.count).length));
    const sourceWidth = Math.min(40, Math.max(6, ...findings.map((f) => sourceText(f).length)));
    const statementWidth = Math.max(20, width - countWidth - sourceWidth - 8);
    out.push(c.dim(`  ${'count'.padStart(countWidth)}  ${'statement'.padEnd(statementWidth)}  source`));
    for (const f of findings) {
      const marks = f.certain ? '' : ' (?)';
      const also = f.alsoChecks.length > 0 ? c.dim(`  also: ${f.alsoChecks.join(', ')}`) : '';
      const statement = oneLine(f.statement, statementWidth - marks.length).padEnd(statementWidth - marks.length);
      out.push(
        `  ${String(f.count).padStart(countWidth)}  ${statement}${c.yellow(marks)}  ${c.dim(sourceText(f))}${also}`,
      );
      if (f.driver) out.push(c.dim(`  ${''.padStart(countWidth)}  driver: ${driverText(f.driver)}`));
      // A setting with advice of its own (session/tracked-parameter's default_transaction_read_only).
      if (f.advice !== info.advice)
        out.push(c.dim(`  ${''.padStart(countWidth)}  fix for ${f.parameter ?? 'this statement'}: ${f.advice}`));
    }
    if (overflow > 0)
      out.push(c.dim(`  ... and ${overflow} more occurrence(s) of further distinct statements (not listed)`));
    const undo = report.cleanups.filter((u) => u.undoes.includes(info.id));
    if (undo.length > 0)
      out.push(c.dim(`  cleanup (undoes the above; not a break): ${undo.map(cleanupText).join('; ')}`));
  }
  const unpaired = report.cleanups.filter((u) => !u.paired);
  if (unpaired.length > 0) {
    out.push('', `${c.bold('Cleanup only')}  statements that undo session state nothing above sets (never a break)`);
    for (const u of unpaired) out.push(`  ${cleanupText(u)}  ${c.dim(u.source)}`);
  }
  if (report.unparsed.count > 0) {
    out.push(
      '',
      c.yellow(c.bold(`Not classified: ${report.unparsed.count} statement(s), ${report.unparsed.distinct} distinct`)),
    );
    for (const u of report.unparsed.samples.slice(0, 10)) {
      out.push(`  ${c.dim(u.source)}  ${oneLine(u.error, 70)}`);
      out.push(`    ${oneLine(u.statement, Math.max(20, width - 4))}`);
    }
    if (report.unparsed.samples.length > 10)
      out.push(c.dim(`  ... ${report.unparsed.samples.length - 10} more in --json`));
  }
  if ((report.traffic ?? []).length > 0) out.push('', c.bold('Traffic the protocol checks concern'));
  for (const t of report.traffic ?? []) {
    const pending = t.checkInCatalogue ? '' : ' (not in this build yet)';
    out.push(`  ${c.bold(t.check)}${pending}  ${t.what}, ${t.count} time(s), first at ${t.source}: ${t.depends}`);
    out.push(`    ${oneLine(t.statement, Math.max(30, width - 6))}`);
    out.push(c.dim(`    fix: ${t.advice}`));
  }
  for (const w of report.warnings) out.push(c.yellow(`warning: ${w}`));
  out.push('', summaryLine(report, c, opts.failOnFindings === true));
  return `${out.join('\n')}\n`;
}

/** What one occurrence is, for each kind of input given, in the order the usage lists them. */
const OCCURRENCE: Readonly<Record<AuditReport['inputs'][number]['kind'], string>> = {
  sql: 'SQL files: each statement as written',
  log: 'logs: each logged execution',
  stats: 'pg_stat_statements: calls',
};

function countedAs(report: AuditReport): string {
  const kinds = new Set(report.inputs.map((i) => i.kind));
  return (Object.keys(OCCURRENCE) as Array<keyof typeof OCCURRENCE>)
    .filter((k) => kinds.has(k))
    .map((k) => OCCURRENCE[k])
    .join('; ');
}

function behaviourLine(findings: readonly AuditFinding[], c: ChalkInstance): string {
  const first = findings[0]!;
  const typical = first.basis === 'typical';
  const where = typical ? 'typically (transaction pooling)' : 'on this pooler';
  const joined = (f: AuditFinding): string =>
    `${c.bold(f.outcome ?? 'no result for this check')} -> ${breaksText(f.breaks, c, typical)}`;
  // A check judged per setting: each setting's own outcome, once (TimeZone fine, IntervalStyle not).
  const perSetting = new Map<string, AuditFinding>();
  for (const f of findings) if (f.parameter !== null && !perSetting.has(f.parameter)) perSetting.set(f.parameter, f);
  if (perSetting.size === 0) return `${where}: ${joined(first)}`;
  const rest = findings.find((f) => f.parameter === null);
  const parts = [...perSetting].map(([name, f]) => `${name}: ${joined(f)}`);
  if (rest !== undefined) parts.push(`other settings: ${joined(rest)}`);
  return `${where}, per setting: ${parts.join('; ')}`;
}

function cleanupText(u: AuditCleanup): string {
  return `${oneLine(u.statement, 60)} x${u.count}`;
}

function breaksText(breaks: Breaks, c: ChalkInstance, typical: boolean): string {
  // Without a pooler the break is what transaction pooling usually does, not a measurement.
  if (breaks === true) return c.red.bold(typical ? 'typically BREAKS (not confirmed)' : 'BREAKS');
  if (breaks === false) return c.green('fine');
  return c.yellow('unknown');
}

function sourceText(f: AuditFinding): string {
  const more = f.sources.length > 1 ? ` (+${f.sources.length - 1})` : '';
  return `${f.source}${more}`;
}

function summaryLine(report: AuditReport, c: ChalkInstance, failOnFindings: boolean): string {
  const s = report.summary;
  const where = report.pooler.basis === 'typical' ? ' under typical transaction pooling' : ' on this pooler';
  const text = [
    `${s.findings} finding(s), ${s.breaking} break${where} (${s.breakingCount} occurrence(s))`,
    `${s.cleanups} cleanup statement(s), never breaking`,
    `${s.unparsed} not classified`,
    `${s.durationMs} ms`,
    // What the exit code of this very run means, not the rule for every run.
    exitMeaning(report, failOnFindings),
  ].join('; ');
  return s.breaking > 0 ? c.red(text) : c.green(text);
}
