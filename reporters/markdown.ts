/**
 * Markdown helpers. Report text comes from servers and poolers, so it is escaped before it
 * lands in a table cell or a footnote: a stray `|` would split a cell, a `<tag>` would vanish
 * in GitHub's renderer, and a line break would end the table or the footnote. Control
 * characters go too (as `?`, by the terminal's rule): a Markdown file is also read with `cat`.
 */
import { oneLine } from './terminal-text.js';

/** Escapes inline text: one line, no markup of its own. */
export function inline(text: string): string {
  return oneLine(text).replace(/([\\`*_[\]<>|#~])/g, '\\$1');
}

/** A code span for short identifiers (check ids, labels); backticks inside are dropped, line breaks flattened. */
export function code(text: string): string {
  return `\`${oneLine(text).replace(/`/g, '').replace(/\|/g, '\\|')}\``;
}

/**
 * Safe inside a table cell and inside `<code>` (where Markdown escapes do not apply):
 * HTML-escaped, pipes and line breaks neutralised, control characters `?`.
 */
export function htmlCell(text: string): string {
  return oneLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;');
}

/** A Markdown table from a header row and body rows (cells already escaped). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The sign before a verdict in a pull-request comment. `observed` has none of its own: the
 * Markdown report's verdict cell says whether the observation breaks.
 */
export const VERDICT_SIGN: Readonly<Record<string, string>> = {
  pass: '✅',
  fail: '❌',
  inconclusive: '⚠️',
  skipped: '⏭️',
};

/** Inline text in which bare http(s) URLs stay clickable (as autolinks) and the rest is escaped. */
export function withLinks(text: string): string {
  return text
    .split(/(https?:\/\/[^\s<>()]+[^\s<>().,;:])/)
    .map((part, i) => (i % 2 === 1 ? `<${part}>` : inline(part)))
    .join('');
}
