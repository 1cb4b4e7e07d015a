/**
 * Turning unreadable, binary or mis-encoded input into one clear `AUDIT_INPUT` error that names
 * the file and what is wrong with it, instead of a stack trace or a silent empty audit.
 */
import { PooltestError } from '../engine/record/errors.js';

/** Maps a file-system error to an `AUDIT_INPUT` error naming the file. */
export function fileError(path: string, error: unknown, flag: string): PooltestError {
  const code = (error as { code?: string } | null)?.code;
  const why: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'is a directory, not a file',
    ENOTDIR: 'a parent of it is not a directory',
    ELOOP: 'too many symbolic links',
    EIO: 'input/output error',
  };
  const reason =
    (code !== undefined ? why[code] : undefined) ?? (error instanceof Error ? error.message : String(error));
  return new PooltestError('AUDIT_INPUT', `${flag} ${path}: cannot read it (${reason})`, {
    file: path,
    errno: code ?? null,
  });
}

/**
 * Offset of the first byte that is not valid UTF-8, or -1. Only called once a file is known to
 * be invalid (Buffer's isUtf8 says so), to say where.
 */
export function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    // Overlong 3/4-byte forms, surrogates and code points above U+10FFFF.
    const c1 = bytes[i + 1] ?? 0;
    if (
      (b === 0xe0 && c1 < 0xa0) ||
      (b === 0xed && c1 > 0x9f) ||
      (b === 0xf0 && c1 < 0x90) ||
      (b === 0xf4 && c1 > 0x8f)
    )
      return i;
    i += need + 1;
  }
  return -1;
}

/** 1-based line and column of a byte offset, for messages. */
export function lineAndColumn(bytes: Buffer, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
