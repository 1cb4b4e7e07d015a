/**
 * Splits an SQL file into statements with PostgreSQL's own lexer, for files the parser cannot
 * take in one piece (one broken statement, psql meta-commands, or too large). Splitting on `;`
 * tokens rather than characters means semicolons inside strings, comments, dollar-quoted bodies
 * and quoted identifiers never split anything. `BEGIN ATOMIC ... END` bodies keep their inner
 * semicolons, the way psql handles them.
 */
import { scanTokens, type SqlToken } from '../common/sql-parser.js';

/** One piece of the file: a statement (without its `;`) or a psql meta-command line. */
export interface SqlPiece {
  /** Byte range in the file. */
  start: number;
  end: number;
  kind: 'statement' | 'meta-command';
}

/** Pieces of `sql` in order, or null when the lexer cannot tokenize it. */
export function splitSql(sql: string, bytes: Buffer): SqlPiece[] | null {
  const tokens = scanTokens(sql);
  if (tokens === null) return null;
  const pieces: SqlPiece[] = [];
  let start: number | null = null;
  let atomicDepth = 0;
  let previous: SqlToken | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === '\\' && startsLine(bytes, token.start)) {
      // psql meta-command (`\connect db`, `\set x 1`): runs to the end of its line.
      if (start !== null) pieces.push({ start, end: token.start, kind: 'statement' });
      const lineEnd = endOfLine(bytes, token.start);
      pieces.push({ start: token.start, end: lineEnd, kind: 'meta-command' });
      while (i + 1 < tokens.length && tokens[i + 1]!.start < lineEnd) i++;
      start = null;
      previous = null;
      continue;
    }
    const word = token.text.toUpperCase();
    if (word === 'ATOMIC' && previous?.text.toUpperCase() === 'BEGIN') atomicDepth++;
    else if (atomicDepth > 0 && (word === 'CASE' || word === 'BEGIN')) atomicDepth++;
    else if (atomicDepth > 0 && word === 'END') atomicDepth--;
    if (token.text === ';' && atomicDepth === 0) {
      if (start !== null) pieces.push({ start, end: token.start, kind: 'statement' });
      start = null;
    } else if (start === null) start = token.start;
    previous = token;
  }
  if (start !== null) pieces.push({ start, end: bytes.length, kind: 'statement' });
  return pieces;
}

/** True when only blanks precede `offset` on its line. */
function startsLine(bytes: Buffer, offset: number): boolean {
  for (let i = offset - 1; i >= 0; i--) {
    const b = bytes[i];
    if (b === 0x0a) return true;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
}

function endOfLine(bytes: Buffer, offset: number): number {
  const nl = bytes.indexOf(0x0a, offset);
  return nl === -1 ? bytes.length : nl;
}
