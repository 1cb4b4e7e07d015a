/**
 * The Markdown report (`--markdown FILE`): a heading that says what was tested, one table of
 * checks (worst severity first) ready for a pull-request comment or a docs page, and the
 * evidence and advice for each check in footnotes, so the table stays one line per check.
 */
import { redactUrl } from '../engine/target.js';
import type { CheckResult, Report } from '../engine/types.js';
import { code, inline, table, VERDICT_BADGE, withLinks } from './markdown.js';
import { poolerText, targetText } from './report-text.js';
import { bySeverity } from './severity.js';
import { countsText, sweepText } from './sweep-text.js';
import { observedReading } from './verdict-text.js';

/** Renders `report` as GitHub-flavoured Markdown. */
export function renderMarkdown(report: Report): string {
  const checks = bySeverity(report.checks);
  const rows = checks.map((c, i) => row(c, i + 1));
  const notes = checks.map((c, i) => footnote(c, i + 1));
  const parts = [
    `### pooltest: ${inline(poolerText(report.discovery))}`,
    '',
    header(report),
    '',
    rows.length > 0 ? table(['Check', 'Severity', 'Outcome', 'Expected', 'Verdict'], rows) : '_No checks were selected._',
    '',
    summary(report),
    '',
    ...notes,
  ];
  return redactUrl(parts.join('\n').replace(/\n+$/, '')) + '\n';
}

function header(r: Report): string {
  const profile = r.profile ? `profile ${code(r.profile.name)} (${withLinks(r.profile.ref)})` : 'no profile: observations only';
  const direct = r.direct ? ` behind it: ${code(targetText(r.direct))}` : '';
  return `Target ${code(targetText(r.target))}${direct} · PostgreSQL ${inline(r.discovery.serverVersion)} · ${profile} · pooltest ${inline(r.tool.version)} · run ${code(r.runId)} · ${inline(r.startedAt)}`;
}

function row(c: CheckResult, n: number): string[] {
  const outcome = c.outcome !== null ? code(c.outcome) : '—';
  return [`${code(c.id)} ${inline(c.title)}`, c.severity, `${outcome}[^${n}]`, c.expected !== null ? code(c.expected) : '—', verdictBadge(c)];
}

/** The verdict cell: an observation says whether it breaks (the severity is the next column over), never a tick. */
function verdictBadge(c: CheckResult): string {
  if (c.verdict !== 'observed') return VERDICT_BADGE[c.verdict] ?? c.verdict;
  const reading = observedReading(c);
  if (reading === 'breaks') return `❗ observed: **breaks** (${c.severity})`;
  if (reading === 'fine') return 'observed: no break';
  return '❔ observed: effect unknown';
}

function footnote(c: CheckResult, n: number): string {
  const parts = [`${code(c.id)}: ${inline(c.evidence)}`];
  if (c.verdict !== 'pass' && c.verdict !== 'observed' && c.reason !== c.evidence) parts.push(`Why ${c.verdict}: ${inline(c.reason)}`);
  if (c.expectedRef) parts.push(`Expected${c.expectedBasis ? ` (${c.expectedBasis === 'observed' ? 'observed on pooltest\'s fixtures' : `${c.expectedBasis}, never observed by pooltest`})` : ''} per: ${withLinks(c.expectedRef)}`);
  if (c.advice) parts.push(`**Advice:** ${inline(c.advice)}`);
  return `[^${n}]: ${parts.map((p) => (/[.!?>)]$/.test(p) ? p : `${p}.`)).join(' ')}`;
}

function summary(r: Report): string {
  const s = r.summary;
  const sweep = r.sweep ? sweepSentence(r.sweep) : 'Sweep: not run.';
  const [counted, rest] = countsText(s).split(/: (.*)/s);
  return `**${counted}:** ${rest}. ${sweep} Exit code ${s.exitCode}.`;
}

function sweepSentence(sweep: NonNullable<Report['sweep']>): string {
  const { state, text } = sweepText(sweep);
  if (state === 'clean') return `${text}.`;
  if (state === 'unknown') return `Sweep: *unknown*, could not look for leftovers: ${inline(sweep.reason ?? 'no reason recorded')}.`;
  return `Sweep: **dirty**, pooltest left state behind: ${inline(sweep.leftovers.join('; '))}.`;
}
