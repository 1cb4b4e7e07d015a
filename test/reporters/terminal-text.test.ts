/** Folding evidence and advice for the terminal: nothing is cut, alignment survives. */
import { expect, test } from 'vitest';
import { wrap } from '../../reporters/terminal-text.js';

test('long evidence is folded at spaces under its label, never cut', () => {
  const text = `    evidence: ${'word '.repeat(40).trim()}`;
  const folded = wrap(text, 60, 14);
  const lines = folded.split('\n');
  expect(lines.length).toBeGreaterThan(1);
  expect(lines.every((l) => l.length <= 60)).toBe(true);
  expect(lines[0]!.startsWith('    evidence: word')).toBe(true);
  expect(lines.slice(1).every((l) => l.startsWith(`${' '.repeat(14)}word`))).toBe(true);
  expect(folded.replace(/\s+/g, ' ').trim()).toBe(text.trim());
});

test('a short line and its aligned label spacing stay as they are', () => {
  expect(wrap('    advice:   use SET LOCAL', 80, 14)).toBe('    advice:   use SET LOCAL');
});
