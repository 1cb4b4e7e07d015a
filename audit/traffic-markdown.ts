/**
 * The Markdown section both the audit and the watch end with when they saw traffic a protocol
 * check concerns (protocol-traffic.ts): one row a check, with what was seen, a statement and
 * the advice. The two say the traffic in their own words (a log's line, a connection's
 * transaction) and keep statements of their own length; the table is one.
 */
import { oneLine } from '../common/display-text.js';
import { htmlCell as cell } from '../reporters/markdown.js';

/** One row of the section, before escaping. */
export interface TrafficRow {
  check: string;
  /** False for a check id this build does not have yet (said beside it). */
  checkInCatalogue: boolean;
  /** What was seen, how often and where, and what depends on it. */
  traffic: string;
  statement: string;
  advice: string;
}

/** The section's lines (a blank line first), or none when there is no row. */
export function trafficSection(rows: readonly TrafficRow[], statementChars: number): string[] {
  if (rows.length === 0) return [];
  return [
    '',
    '## Traffic the protocol checks concern',
    '',
    '| check | traffic | statement | advice |',
    '|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.check}\`${cell(pendingText(r))} | ${cell(r.traffic)} | <code>${cell(oneLine(r.statement, statementChars))}</code> | ${cell(r.advice)} |`,
    ),
  ];
}

/** Said beside a check id this build does not have yet. */
export function pendingText(t: Pick<TrafficRow, 'checkInCatalogue'>): string {
  return t.checkInCatalogue ? '' : ' (not in this build yet)';
}
