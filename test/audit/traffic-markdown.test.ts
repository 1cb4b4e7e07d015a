/**
 * The traffic section the audit's and the watch's Markdown share (audit/traffic-markdown.ts):
 * nothing without traffic, and otherwise one row a check, its cells escaped, a check this
 * build lacks said beside its id, the statement cut at the caller's length.
 */
import { expect, test } from 'vitest';
import { trafficSection } from '../../audit/traffic-markdown.js';

const row = {
  check: 'copy/in-out',
  checkInCatalogue: true,
  traffic: 'COPY FROM STDIN, 2 time(s)',
  statement: "COPY t FROM STDIN -- '|<x>'",
  advice: 'Keep it where copy/in-out passes.',
};

test('no traffic, no section', () => {
  expect(trafficSection([], 300)).toEqual([]);
});

test('one row a check, escaped, with a check this build lacks said beside its id', () => {
  const lines = trafficSection([row, { ...row, check: 'pipeline/next', checkInCatalogue: false }], 300);
  expect(lines.slice(0, 5)).toEqual([
    '',
    '## Traffic the protocol checks concern',
    '',
    '| check | traffic | statement | advice |',
    '|---|---|---|---|',
  ]);
  expect(lines[5]).toBe(
    "| `copy/in-out` | COPY FROM STDIN, 2 time(s) | <code>COPY t FROM STDIN -- '&#124;&lt;x&gt;'</code> | Keep it where copy/in-out passes. |",
  );
  expect(lines[6]).toContain('| `pipeline/next` (not in this build yet) |');
});

test("the statement is cut at the caller's length", () => {
  const [line] = trafficSection([{ ...row, statement: 'x'.repeat(50) }], 20).slice(5);
  expect(line).toContain(`<code>${'x'.repeat(17)}...</code>`);
});
