/**
 * A diff as Markdown, for the pull request that moves an application to another pooler: one
 * table of checks side by side, then the breaks with their advice as a list a reviewer can
 * work through.
 */
import type { ChangeKind, DiffSide, ReportDiff } from './report-diff.js';
import { code, inline, table } from './markdown.js';
import { sideWhat, targetText } from './report-text.js';
import { bySeverity } from './severity.js';
import { newCounts, newVerdict } from './diff-terminal.js';

const CHANGE_BADGE: Readonly<Record<ChangeKind, string>> = {
  breaks: '❌ **breaks**',
  fixed: '✅ fixed',
  same: 'same',
  changed: 'changed',
  unknown: '⚠️ unknown',
};

/** Renders a diff as GitHub-flavoured Markdown. */
export function renderDiffMarkdown(diff: ReportDiff): string {
  const entries = bySeverity(diff.entries);
  const rows = entries.map((e) => [
    `${code(e.id)} ${inline(e.title)}`,
    inline(e.severity),
    e.old !== null ? code(e.old) : '—',
    e.new !== null ? code(e.new) : '—',
    CHANGE_BADGE[e.change],
    newVerdict(e),
  ]);
  const breaks = entries.filter((e) => e.change === 'breaks');
  const s = diff.summary;
  const parts = [
    '### pooltest diff: what changes for the application',
    '',
    `- **OLD**: ${sideText(diff.old)}`,
    `- **NEW**: ${sideText(diff.new)}`,
    '',
    table(['Check', 'Severity', 'OLD', 'NEW', 'Change', 'NEW verdict'], rows),
    '',
    `**${s.breaks} break(s)**, ${s.fixed} fixed, ${s.same} same, ${s.changed} changed, ${s.unknown} unknown. NEW: ${newCounts(diff)}.`,
  ];
  if (breaks.length > 0) {
    parts.push(
      '',
      '#### Breaks',
      '',
      ...breaks.map(
        (e) =>
          `- ${code(e.id)}: ${code(e.old ?? '-')} → ${code(e.new ?? '-')}. ${inline(e.advice ?? 'No advice recorded for this outcome; see INTERPRETING.md.')}`,
      ),
    );
  }
  return parts.join('\n') + '\n';
}

function sideText(s: DiffSide): string {
  const what = sideWhat(s);
  const sweep = s.sweep ? `, sweep ${inline(s.sweep)}` : '';
  return `${code(targetText(s.target))}, ${inline(what)}, PostgreSQL ${inline(s.serverVersion)}, run ${code(s.runId)}${sweep}`;
}
