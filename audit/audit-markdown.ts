/**
 * The Markdown view of an audit, for a pull request or a migration ticket: a summary, then a
 * section per check with the pooler's behaviour, the fix, and a table of statements.
 */
import { driverText } from './driver-attribution.js';
import type { AuditReport, Breaks } from './audit-types.js';
import { groupByCheck } from './check-groups.js';
import { trafficSection } from './traffic-markdown.js';
import { htmlCell as cell } from '../reporters/markdown.js';
import { oneLine } from '../common/display-text.js';

/** Renders `report` as a Markdown document. */
export function renderAuditMarkdown(report: AuditReport): string {
  const s = report.summary;
  const lines: string[] = ['# pooltest audit', ''];
  lines.push(`Pooler: ${report.pooler.name} (${basisText(report.pooler.basis)}).`, '');
  const columns = [
    'statement occurrences',
    'texts parsed (one per SQL file or distinct log/stats text)',
    'findings',
    'breaking',
    'breaking occurrences',
    'cleanup statements (never breaking)',
    'not classified',
  ];
  lines.push(`| ${columns.join(' | ')} |`);
  lines.push(`|---:|---:|---:|---:|---:|---:|---:|`);
  lines.push(
    `| ${s.statements} | ${s.parsedTexts} | ${s.findings} | ${s.breaking} | ${s.breakingCount} | ${s.cleanups} | ${s.unparsed} |`,
    '',
  );
  lines.push(
    `Inputs: ${report.inputs.map((i) => `${i.kind} \`${i.name}\` (${i.statements} statements${i.format ? `, ${i.format}` : ''})`).join('; ')}.`,
  );
  for (const { info, findings, overflow } of groupByCheck(report)) {
    const first = findings[0];
    lines.push('', `## \`${info.id}\`: ${info.title}`, '');
    if (first !== undefined) {
      const does = first.basis === 'typical' ? 'typically does (no pooler given, not confirmed)' : 'does';
      // A check judged per setting (session/tracked-parameter): each setting's own outcome.
      const perSetting = [...new Map(findings.filter((f) => f.parameter !== null).map((f) => [f.parameter, f]))];
      const said =
        perSetting.length === 0
          ? `**${first.outcome ?? 'unknown'}**, ${breaksText(first.breaks)}`
          : perSetting
              .map(([name, f]) => `\`${name}\` **${f.outcome ?? 'unknown'}**, ${breaksText(f.breaks)}`)
              .join('; ');
      lines.push(`What the pooler ${does}: ${said}.`, '');
    }
    lines.push(`Fix: ${info.advice}`, '');
    lines.push('| count | statement | source |', '|---:|---|---|');
    for (const f of findings) {
      const sources = f.sources.map(cell).join('<br>');
      lines.push(
        `| ${f.count} | <code>${cell(oneLine(f.statement, 300))}</code>${f.certain ? '' : ' (uncertain)'}${f.driver ? `<br>driver: ${cell(driverText(f.driver))}` : ''} | ${sources} |`,
      );
    }
    // Settings with advice of their own (session/tracked-parameter's default_transaction_read_only).
    const own = [...new Map(findings.filter((f) => f.advice !== info.advice).map((f) => [f.parameter, f.advice]))];
    if (own.length > 0)
      lines.push('', ...own.map(([name, advice]) => `Fix for \`${cell(name ?? 'this statement')}\`: ${cell(advice)}`));
    if (overflow > 0) lines.push('', `Plus ${overflow} occurrence(s) of further distinct statements, not listed.`);
    const undo = report.cleanups.filter((u) => u.undoes.includes(info.id));
    if (undo.length > 0)
      lines.push(
        '',
        `Cleanup (undoes the above, not a break): ${undo.map((u) => `<code>${cell(oneLine(u.statement, 120))}</code> ×${u.count}`).join(', ')}.`,
      );
  }
  const unpaired = report.cleanups.filter((u) => !u.paired);
  if (unpaired.length > 0) {
    lines.push(
      '',
      '## Cleanup only (never breaking)',
      '',
      '| count | statement | undoes | source |',
      '|---:|---|---|---|',
    );
    for (const u of unpaired)
      lines.push(
        `| ${u.count} | <code>${cell(oneLine(u.statement, 200))}</code> | ${cell(u.undoes.join(', '))} | ${cell(u.source)} |`,
      );
  }
  if (report.unparsed.count > 0) {
    lines.push(
      '',
      `## Not classified (${report.unparsed.count} occurrences, ${report.unparsed.distinct} distinct)`,
      '',
    );
    lines.push('| source | error | statement |', '|---|---|---|');
    for (const u of report.unparsed.samples)
      lines.push(
        `| ${cell(u.source)} | ${cell(oneLine(u.error, 200))} | <code>${cell(oneLine(u.statement, 200))}</code> |`,
      );
  }
  const traffic = (report.traffic ?? []).map((t) => ({
    ...t,
    traffic: `${t.what}, ${t.count} time(s), first at ${t.source}: ${t.depends}`,
  }));
  lines.push(...trafficSection(traffic, 300));
  if (report.warnings.length > 0) lines.push('', '## Warnings', '', ...report.warnings.map((w) => `- ${cell(w)}`));
  return `${lines.join('\n')}\n`;
}

function basisText(basis: AuditReport['pooler']['basis']): string {
  if (basis === 'report') return 'outcomes from a pooltest report';
  if (basis === 'target') return 'outcomes from checks run now';
  return 'no --report or --target given';
}

function breaksText(breaks: Breaks): string {
  if (breaks === true) return 'the statement **breaks**';
  if (breaks === false) return 'the statement keeps working';
  return 'whether it breaks is unknown';
}
