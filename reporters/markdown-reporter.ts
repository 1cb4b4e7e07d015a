/**
 * The Markdown report (`--markdown FILE`), shaped for a pull-request comment: the summary
 * first, then what was tested, one table of checks (worst severity first), and for each check
 * that needs a reader's attention (its outcome breaks an application written for a direct
 * connection, or its verdict is not a pass) a collapsed `<details>` with the evidence, advice
 * and a Mermaid sequence diagram of the recorded steps. The evidence of the other checks sits
 * in one more collapsed block, so the comment stays short until someone opens it.
 */
import { describeWireFinding } from '../engine/discovery/probes.js';
import { redactUrl } from '../engine/target/target.js';
import type { CheckResult, Report } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { esc } from './html.js';
import { code, inline, table, VERDICT_SIGN, withLinks } from './markdown.js';
import { mermaidLegend, renderMermaid } from './mermaid.js';
import { poolerText, targetText } from './report-text.js';
import { bySeverity } from './severity.js';
import { plural, sweepText } from './sweep-text.js';
import { observedReading, reportCounts, verdictPhrase } from './verdict-text.js';

/** Renders `report` as GitHub-flavoured Markdown. */
export function renderMarkdown(report: Report): string {
  const checks = bySeverity(report.checks);
  const attention = checks.filter(needsAttention);
  const others = checks.filter((c) => !needsAttention(c));
  const parts = [
    `### pooltest: ${inline(poolerText(report.discovery))}`,
    '',
    summary(report, attention.length),
    '',
    header(report),
    '',
    // A malformed reply to an optional discovery probe: a finding about the pooler.
    ...(report.discovery.wireFindings ?? []).flatMap((f) => [`> Wire finding: ${inline(describeWireFinding(f))}`, '']),
    checks.length > 0
      ? table(['Check', 'Severity', 'Outcome', 'Expected', 'Verdict'], checks.map(row))
      : '_No checks were selected._',
    '',
    ...withinLimit(attention),
    ...(others.length > 0 ? [otherEvidence(others), ''] : []),
  ];
  return redactUrl(parts.join('\n').replace(/\n+$/, '')) + '\n';
}

/** GitHub refuses comments over 65 536 characters; the blocks stay well under that. */
export const COMMENT_BUDGET = 55_000;

/**
 * The collapsed blocks, each with its diagram while they fit in {@link COMMENT_BUDGET}; beyond
 * it, the last blocks lose their diagrams (the evidence stays) and a line says where they are.
 */
function withinLimit(checks: readonly CheckResult[]): string[] {
  const full = checks.map((c) => details(c, true));
  let total = full.reduce((n, b) => n + b.length + 1, 0);
  let dropped = 0;
  for (let i = full.length - 1; i >= 0 && total > COMMENT_BUDGET; i--) {
    const lean = details(checks[i]!, false);
    total -= full[i]!.length - lean.length;
    full[i] = lean;
    dropped++;
  }
  const note =
    dropped > 0
      ? [
          `_Sequence diagrams of the last ${dropped} check(s) left out to keep the comment within GitHub's size limit: the HTML report (\`--html\`) draws every one._`,
          '',
        ]
      : [];
  return [...full.flatMap((b) => [b, '']), ...note];
}

/** A breaking outcome, a failed expectation or an inconclusive check: worth opening. */
export function needsAttention(c: CheckResult): boolean {
  return outcomeBreaks(c.outcome) === true || c.verdict === 'fail' || c.verdict === 'inconclusive';
}

function header(r: Report): string {
  const profile = r.profile
    ? `profile ${code(r.profile.name)} (${withLinks(r.profile.ref)})`
    : 'no profile: observations only';
  const direct = r.direct ? ` behind it: ${code(targetText(r.direct))}` : '';
  return [
    `Target ${code(targetText(r.target))}${direct}`,
    `PostgreSQL ${inline(r.discovery.serverVersion)}`,
    profile,
    `pooltest ${inline(r.tool.version)}`,
    `run ${code(r.runId)}`,
    inline(r.startedAt),
  ].join(' · ');
}

function row(c: CheckResult): string[] {
  const outcome = c.outcome !== null ? code(c.outcome) : '—';
  const mark = outcomeBreaks(c.outcome) === true ? ' ⚠️' : '';
  return [
    `${code(c.id)} ${inline(c.title)}`,
    c.severity,
    `${outcome}${mark}`,
    c.expected !== null ? code(c.expected) : '—',
    verdictBadge(c),
  ];
}

/**
 * The verdict cell: the words of every renderer (verdict-text.ts) behind a sign that reads at a
 * glance; an observation says whether it breaks and how badly, never with a tick.
 */
function verdictBadge(c: CheckResult): string {
  const phrase = verdictPhrase(c);
  if (c.verdict !== 'observed')
    return `${VERDICT_SIGN[c.verdict] ?? ''} ${c.verdict === 'fail' ? `**${phrase}**` : phrase}`.trim();
  const reading = observedReading(c);
  if (reading === 'breaks') return `❗ **${phrase}**`;
  return reading === 'fine' ? phrase : `❔ ${phrase}`;
}

/** Where an expectation came from, and whether pooltest ever saw it hold. */
function expectedPer(c: CheckResult): string {
  const basis = c.expectedBasis
    ? ` (${c.expectedBasis === 'observed' ? "observed on pooltest's fixtures" : `${c.expectedBasis}, never observed by pooltest`})`
    : '';
  return `Expected${basis} per: ${withLinks(c.expectedRef ?? '')}`;
}

/** One collapsed block: the summary line is HTML (GitHub does not render Markdown there). */
function details(c: CheckResult, withDiagram: boolean): string {
  const lines = [
    '<details>',
    `<summary><code>${esc(c.id)}</code>: ${esc(c.outcome ?? 'no outcome')} · ${esc(verdictPhrase(c))} · ${esc(c.severity)}</summary>`,
    '',
    `**Evidence:** ${sentence(inline(c.evidence))}`,
  ];
  if (c.verdict !== 'pass' && c.verdict !== 'observed' && c.reason !== c.evidence)
    lines.push('', `**Why ${c.verdict}:** ${sentence(inline(c.reason))}`);
  if (c.expectedRef) lines.push('', expectedPer(c));
  if (c.advice) lines.push('', `**Advice:** ${sentence(inline(c.advice))}`);
  const diagram = withDiagram ? renderMermaid(c) : '';
  if (diagram) lines.push('', '```mermaid', diagram, '```', '', `_Lifelines:_ ${inline(mermaidLegend(c))}.`);
  lines.push('', '</details>');
  return lines.join('\n');
}

function otherEvidence(checks: readonly CheckResult[]): string {
  const items = checks.map(
    (c) =>
      `- ${code(c.id)} ${code(c.outcome ?? '—')}: ${sentence(inline(c.evidence))}${c.advice ? ` **Advice:** ${sentence(inline(c.advice))}` : ''}`,
  );
  return [
    '<details>',
    `<summary>Evidence for the other ${checks.length} check(s)</summary>`,
    '',
    ...items,
    '',
    '</details>',
  ].join('\n');
}

function sentence(text: string): string {
  return /[.!?>)]$/.test(text) ? text : `${text}.`;
}

function summary(r: Report, attention: number): string {
  const s = r.summary;
  const sweep = r.sweep ? sweepSentence(r.sweep) : 'Sweep: not run.';
  const open = attention > 0 ? ` ${attention} check(s) to look at below.` : '';
  return `**${plural(r.checks.length, 'check')}:** ${reportCounts(r)}. ${sweep} Exit code ${s.exitCode}.${open}`;
}

function sweepSentence(sweep: NonNullable<Report['sweep']>): string {
  const { state, text } = sweepText(sweep);
  if (state === 'clean') return `${text}.`;
  if (state === 'unknown')
    return `Sweep: *unknown*, could not look for leftovers: ${inline(sweep.reason ?? 'no reason recorded')}.`;
  return `Sweep: **dirty**, pooltest left state behind: ${inline(sweep.leftovers.join('; '))}.`;
}
