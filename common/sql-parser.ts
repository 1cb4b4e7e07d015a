/**
 * The one door to libpg-query (PostgreSQL 18's own parser compiled to WASM). Everything the
 * audit knows about SQL comes through here; nothing looks at SQL text with patterns. The
 * synchronous calls need the module loaded once, which {@link loadParser} does.
 */
import { loadModule, normalizeSync, parsePlPgSQLSync, parseSync, scanSync } from 'libpg-query';

/** A parsed node as plain JSON: `{ SelectStmt: {...} }` and so on. */
export type AstNode = Record<string, unknown>;

/** One statement of a parsed text, with its own slice of that text. */
export interface ParsedStatement {
  /** The node wrapper, e.g. `{ VariableSetStmt: {...} }`. */
  node: AstNode;
  /** The statement's own text (leading blanks and comments kept, as PostgreSQL slices it). */
  text: string;
  /** Character offset of `text` in the parsed input. */
  offset: number;
}

/** A parse error with the character position PostgreSQL reported (0-based, -1 unknown). */
export class SqlParseFailure extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(message);
    this.name = 'SqlParseFailure';
    this.position = position;
  }
}

let loading: Promise<void> | null = null;

/** Loads the WASM parser; cheap to call again. */
export function loadParser(): Promise<void> {
  loading ??= loadModule();
  return loading;
}

/**
 * Parses a text that may hold several statements. PostgreSQL reports statement boundaries in
 * bytes of UTF-8, so non-ASCII texts are sliced through a Buffer.
 */
export function parseStatements(sql: string): ParsedStatement[] {
  let result: { stmts?: Array<{ stmt?: unknown; stmt_location?: number; stmt_len?: number }> };
  try {
    result = parseSync(sql) as typeof result;
  } catch (error) {
    throw toFailure(error, sql);
  }
  const stmts = result.stmts ?? [];
  const ascii = isAscii(sql);
  const bytes = ascii ? null : Buffer.from(sql, 'utf8');
  const total = bytes === null ? sql.length : bytes.length;
  const out: ParsedStatement[] = [];
  for (const raw of stmts) {
    if (raw.stmt === undefined || raw.stmt === null || typeof raw.stmt !== 'object') continue;
    const start = raw.stmt_location ?? 0;
    // stmt_len 0 means "to the end of the input".
    const end = raw.stmt_len ? start + raw.stmt_len : total;
    const text = bytes === null ? sql.slice(start, end) : bytes.subarray(start, end).toString('utf8');
    const offset = bytes === null ? start : bytes.subarray(0, start).toString('utf8').length;
    out.push({ node: raw.stmt as AstNode, text, offset });
  }
  return out;
}

/** The parser's normalized text (constants replaced by `$n`); the input itself if it fails. */
export function normalizeStatement(sql: string): string {
  try {
    return normalizeSync(sql).trim();
  } catch {
    return sql.trim();
  }
}

/** PL/pgSQL parse tree of every DO block / function in `sql`, or the compiler's error. */
export function parsePlpgsql(sql: string): { ok: true; tree: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, tree: parsePlPgSQLSync(sql) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A lexer token: byte offsets into the input and the token's text. */
export interface SqlToken {
  start: number;
  end: number;
  text: string;
  tokenName: string;
  keywordName: string;
}

/** The real PostgreSQL lexer; null when it cannot tokenize the text (e.g. unterminated quote). */
export function scanTokens(sql: string): SqlToken[] | null {
  try {
    return scanSync(sql).tokens;
  } catch {
    return null;
  }
}

/** The character offset of a UTF-8 byte offset into `text` (the parser and lexer count bytes). */
export function charOffset(text: string, byteOffset: number): number {
  if (byteOffset <= 0 || isAscii(text)) return byteOffset;
  return Buffer.from(text, 'utf8').subarray(0, byteOffset).toString('utf8').length;
}

/** True when every character is 7-bit, so byte and character offsets agree. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

function toFailure(error: unknown, sql: string): SqlParseFailure {
  const e = error as { message?: string; sqlDetails?: { cursorPosition?: number } };
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return new SqlParseFailure(message, charOffset(sql, e?.sqlDetails?.cursorPosition ?? -1));
}
