/**
 * The terminal and Markdown views of a watch: per finding, the state, the statement that
 * created it and the later statement that relied on it (with their transaction numbers), the
 * connection, what the pooler does and the fix.
 */
import type { ChalkInstance } from 'chalk';
import type { Breaks } from '../audit/audit-types.js';
import { pendingText, trafficSection } from '../audit/traffic-markdown.js';
import { oneLine } from '../common/display-text.js';
import { htmlCell as cell } from '../reporters/markdown.js';
import { terminalSafe } from '../reporters/terminal-text.js';
import type { WatchFinding, WatchReport, WatchTraffic } from './watch-types.js';

/** Renders `report` for a terminal `width` columns wide. */
export function renderWatchTerminal(unsafe: WatchReport, c: ChalkInstance, width: number): string {
  // SQL, application_name and the upstream's text came off the wire: printable first.
  const report = terminalSafe(unsafe);
  const s = report.summary;
  const out: string[] = [];
  const traffic = `${s.connections} connection(s), ${s.transactions} transaction(s), ${s.statements} statement(s)`;
  out.push(`${c.bold('pooltest watch')}  ${traffic} through ${report.listen} -> ${report.upstream}`);
  out.push(
    c.dim(`pooler: ${report.pooler.name}${report.pooler.basis === 'typical' ? '  (no --report/--target given)' : ''}`),
  );
  if (report.command !== null)
    out.push(
      c.dim(
        `command: ${report.command.argv.join(' ')} -> ${report.command.signal ?? `exit ${report.command.exitCode}`}`,
      ),
    );
  const unseen = unansweredText(s);
  if (unseen !== null) out.push('', c.red.bold(unseen));
  if (report.findings.length === 0) {
    const none = nothingFoundText(s);
    out.push('', none.clean ? c.green(none.text) : c.yellow(none.text));
  }
  const sql = Math.max(30, width - 16);
  for (const f of report.findings) {
    out.push('', `${c.bold(f.check)}  ${f.title}`);
    out.push(`  ${behaviourLine(f, c)}`);
    out.push(`  state: ${f.state}${f.certain ? '' : c.yellow(' (inferred)')}; ${connectionText(f)}`);
    out.push(`  ${c.cyan(`T${f.created.transaction}`.padEnd(5))} created  ${oneLine(f.created.sql, sql)}`);
    if (f.used !== null) {
      const use = f.use === 'explicit' ? 'used    ' : 'ran under';
      out.push(
        `  ${c.cyan(`T${f.used.transaction}`.padEnd(5))} ${use} ${oneLine(f.used.sql, sql)}${c.dim(`  (${f.used.what})`)}`,
      );
    } else out.push(`  ${''.padEnd(5)} ${c.yellow('no later transaction used it in this run')}`);
    out.push(`  ${evidenceText(f)}: ${f.how}`);
    out.push(c.dim(`  fix: ${f.advice}`));
  }
  for (const [check, n] of Object.entries(report.overflow))
    out.push(c.dim(`... and ${n} more dependency(ies) of ${check} beyond the kept findings`));
  if ((report.traffic ?? []).length > 0) out.push('', c.bold('Traffic the protocol checks concern'));
  for (const t of report.traffic ?? []) {
    out.push(`  ${c.bold(t.check)}${pendingText(t)}  ${trafficText(t)}`);
    out.push(`    ${oneLine(t.statement, sql)}`);
    out.push(c.dim(`    fix: ${t.advice}`));
  }
  for (const w of report.warnings) out.push(c.yellow(`warning: ${w}`));
  const where = report.pooler.basis === 'typical' ? ' under typical transaction pooling' : ' on this pooler';
  const line = `${s.findings} finding(s), ${s.breaking} break${where}; ${s.parsedTexts} distinct texts parsed; ${s.durationMs} ms`;
  const unanswered = s.unanswered > 0 ? `; ${s.unanswered} connection(s) not seen` : '';
  out.push('', s.breaking > 0 || s.unanswered > 0 ? c.red(line + unanswered) : c.green(line));
  return `${out.join('\n')}\n`;
}

/** Renders `report` as a Markdown document. */
export function renderWatchMarkdown(report: WatchReport): string {
  const s = report.summary;
  const lines: string[] = ['# pooltest watch', ''];
  lines.push(
    `Upstream \`${cell(report.upstream)}\`; pooler: ${cell(report.pooler.name)} (${basisText(report.pooler.basis)}).`,
    '',
  );
  if (report.command !== null)
    lines.push(
      `Command: \`${cell(report.command.argv.join(' '))}\`, ${report.command.signal ?? `exit ${report.command.exitCode}`}.`,
      '',
    );
  lines.push(
    '| connections | not seen | transactions | statements | findings | breaking |',
    '|---:|---:|---:|---:|---:|---:|',
  );
  lines.push(
    `| ${s.connections} | ${s.unanswered} | ${s.transactions} | ${s.statements} | ${s.findings} | ${s.breaking} |`,
    '',
  );
  const unseen = unansweredText(s);
  if (unseen !== null) lines.push(`**${unseen}**`, '');
  if (report.findings.length === 0) lines.push(nothingFoundText(s).text);
  for (const f of report.findings) {
    lines.push('', `## \`${f.check}\`: ${cell(f.state)}`, '');
    const seen = `Seen ${f.count} time(s) on ${f.connections} connection(s); first on ${cell(connectionText(f))}.`;
    lines.push(
      `${cell(f.title)}. What the pooler does: **${cell(f.outcome ?? 'unknown')}**, ${breaksText(f.breaks)}. ${seen}`,
      '',
    );
    lines.push('| transaction | role | statement |', '|---:|---|---|');
    lines.push(
      `| T${f.created.transaction} | created (${cell(f.created.what)}) | <code>${cell(oneLine(f.created.sql, 400))}</code> |`,
    );
    lines.push(
      f.used === null
        ? '| | (no later transaction used it in this run) | |'
        : `| T${f.used.transaction} | ${f.use === 'explicit' ? 'used' : 'ran under it'} (${cell(f.used.what)}) | <code>${cell(oneLine(f.used.sql, 400))}</code> |`,
      '',
    );
    lines.push(`${cell(evidenceText(f))}: ${cell(f.how)}`, '');
    lines.push(`Fix: ${cell(f.advice)}`);
  }
  lines.push(
    ...trafficSection(
      (report.traffic ?? []).map((tr) => ({ ...tr, traffic: trafficText(tr) })),
      400,
    ),
  );
  if (report.warnings.length > 0) lines.push('', '## Warnings', '', ...report.warnings.map((w) => `- ${cell(w)}`));
  return `${lines.join('\n')}\n`;
}

/** One traffic entry in words: what, how often, where first, and what it depends on. */
export function trafficText(t: WatchTraffic): string {
  const block = t.inBlock > 0 ? `, ${t.inBlock} inside a transaction block` : '';
  return `${t.what}: ${t.count} time(s) on ${t.connections} connection(s)${block}, first on connection ${t.first.connection} (T${t.first.transaction}); ${t.depends}`;
}

/**
 * The warning for connections the upstream never answered (see `summary.unanswered`), or null.
 * Their statements were never seen: the report must not read as a clean result.
 */
export function unansweredText(s: WatchReport['summary']): string | null {
  if (s.unanswered === 0) return null;
  return `${s.unanswered} of ${s.connections} connection(s) got no answer from the upstream (it could not be reached, or closed at once): what they would have run was never seen, so this is not a clean result.`;
}

/** What to say when there is no finding; `clean` only when every connection was seen. */
export function nothingFoundText(s: WatchReport['summary']): { text: string; clean: boolean } {
  if (s.connections === 0)
    return { text: 'No connection came through the proxy: there was nothing to observe.', clean: false };
  if (s.unanswered === s.connections)
    return { text: 'Nothing was observed: no connection got an answer from the upstream.', clean: false };
  const seen = s.connections - s.unanswered;
  if (s.unanswered > 0)
    return {
      text: `No statement relied on session state in the ${seen} connection(s) the upstream answered; the other ${s.unanswered} were not seen.`,
      clean: false,
    };
  return {
    text: 'No statement relied on session state left by an earlier transaction of its connection.',
    clean: true,
  };
}

/** Where a finding was first seen, as a person looking for it in the app's logs needs it. */
export function connectionText(f: WatchFinding): string {
  const c = f.connection;
  const app = c.applicationName ? `application_name "${c.applicationName}"` : 'no application_name';
  const listed = f.connectionIds.length < f.connections ? `, ... (${f.connections})` : '';
  const more =
    f.connections > 1
      ? `; ${f.count} time(s) on connections ${f.connectionIds.join(', ')}${listed}`
      : f.count > 1
        ? `; ${f.count} times`
        : '';
  return `connection ${c.id} (${app}, client port ${c.clientPort})${more}`;
}

/** How sure the watch is, in words: it saw the dependency, or the state breaks by existing. */
export function evidenceText(f: WatchFinding): string {
  return f.evidence === 'seen' ? 'seen: a later transaction relied on it' : 'would break (not exercised in this run)';
}

export function basisText(basis: WatchReport['pooler']['basis']): string {
  if (basis === 'report') return 'outcomes from a pooltest report';
  if (basis === 'target') return 'outcomes from checks run now';
  return 'no --report or --target given: typical transaction pooling';
}

function behaviourLine(f: WatchFinding, c: ChalkInstance): string {
  const where = f.basis === 'typical' ? 'typically (transaction pooling)' : 'on this pooler';
  return `${where}: ${c.bold(f.outcome ?? 'no result for this check')} -> ${breaksLabel(f.breaks, c)}`;
}

function breaksLabel(breaks: Breaks, c: ChalkInstance): string {
  if (breaks === true) return c.red.bold('BREAKS');
  if (breaks === false) return c.green('fine');
  return c.yellow('unknown');
}

function breaksText(breaks: Breaks): string {
  if (breaks === true) return 'the dependency **breaks**';
  if (breaks === false) return 'it keeps working';
  return 'whether it breaks is unknown';
}
