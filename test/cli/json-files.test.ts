/**
 * A JSON file the user names (`pooltest diff A B`, `--expect FILE`) that is binary, or text with
 * terminal escapes in it, is refused with a message of printable characters only: JSON.parse
 * quotes the text around its error, which would put the file's raw bytes on the terminal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readReport } from '../../cli/diff-command.js';
import { readExpectations } from '../../cli/drivers-command.js';
import { parseJsonBytes, printable } from '../../engine/record/json-file.js';
import { PooltestError } from '../../engine/record/errors.js';
import { loadExpectations } from '../../runner/expectations.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-json-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer | string): string {
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

/** Bytes outside printable text: a terminal escape, a bell, a replacement character. */
const UNPRINTABLE = /[\x00-\x08\x0b-\x1f\x7f\uFFFD]/;

function refusal(read: () => unknown): PooltestError {
  try {
    read();
  } catch (e) {
    if (e instanceof PooltestError) return e;
    throw e;
  }
  throw new Error('read did not throw');
}

describe('JSON files named on the command line', () => {
  const binary = file('bin.dat', Buffer.from([0x8b, 0x3e, 0xfe, 0x73, 0x46, 0x37, 0x00, 0x1b, 0x5b, 0x32, 0x4a]));
  const escapes = file('escapes.json', '\x1b[2J\x1b[31m{"not": json}\x07');
  const latin1 = file('latin1.json', Buffer.from([0x7b, 0xe9, 0x7d]));

  test('a binary file is named as binary, with the offset of its first NUL byte', () => {
    const read = parseJsonBytes(Buffer.from([0x8b, 0x3e, 0x00]));
    expect(read).toEqual({ ok: false, problem: 'looks binary (NUL byte at offset 2); not a JSON file' });
  });

  test.each([
    ['pooltest diff', (f: string) => readReport(f), 'REPORT_INVALID'],
    ['pooltest --expect', (f: string) => loadExpectations(f, () => {}), 'EXPECTATIONS_INVALID'],
    ['pooltest drivers --expect', (f: string) => readExpectations(f), 'BAD_ARGUMENTS'],
  ] as const)('%s: binary, escape-laden and non-UTF-8 files are refused in printable words', (_, read, code) => {
    for (const f of [binary, escapes, latin1]) {
      const e = refusal(() => read(f));
      expect(e.code).toBe(code);
      expect(e.message).toContain(f);
      expect(e.message).not.toMatch(UNPRINTABLE);
    }
    expect(refusal(() => read(binary)).message).toContain('looks binary');
    expect(refusal(() => read(latin1)).message).toContain('not UTF-8');
  });

  test('control: the escapes are really in what JSON.parse says about that file', () => {
    let message = '';
    try {
      JSON.parse('\x1b[2J\x1b[31m{"not": json}\x07');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(UNPRINTABLE);
    expect(printable(message)).not.toMatch(UNPRINTABLE);
    expect(printable('ünïcode stays')).toBe('ünïcode stays');
  });
});
