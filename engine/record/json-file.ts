/**
 * Reading a JSON file the user named (a report for `diff`, an `--expect` file): what is wrong
 * with it in words that hold only printable characters. JSON.parse's own message quotes the
 * text around the error, so a binary file given by mistake would otherwise put raw bytes, and
 * terminal escape sequences among them, into the one-line error.
 */
import { isUtf8 } from 'node:buffer';

export type JsonRead = { ok: true; value: unknown } | { ok: false; problem: string };

/** The parsed value of `bytes`, or why they are not JSON text. */
export function parseJsonBytes(bytes: Buffer): JsonRead {
  const nul = bytes.indexOf(0);
  if (nul !== -1) return { ok: false, problem: `looks binary (NUL byte at offset ${nul}); not a JSON file` };
  if (!isUtf8(bytes)) return { ok: false, problem: 'is not UTF-8 text; not a JSON file' };
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch (err) {
    return { ok: false, problem: `is not valid JSON: ${printable(err instanceof Error ? err.message : String(err))}` };
  }
}

/** `text` with control, format and unassigned characters (and U+FFFD) written as \u escapes. */
export function printable(text: string): string {
  return text.replace(/[\p{C}\uFFFD]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
