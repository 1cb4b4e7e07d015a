/**
 * The one door to libpg-query (PostgreSQL 18's own parser compiled to WASM). Everything the
 * audit knows about SQL comes through here; nothing looks at SQL text with patterns. The
 * synchronous calls need the module loaded once, which {@link loadParser} does.
 */
import { setFlagsFromString } from 'node:v8';
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

/**
 * V8 compiles each WASM function with its quick compiler (Liftoff) when first called, then
 * recompiles the ones that run hot with its optimizing compiler (TurboFan) on background
 * threads. For PostgreSQL's parser that second step is the dearest thing an audit does:
 * TurboFan on the grammar's huge functions took about 1 CPU s per thread that parses (each
 * worker again), and on the bench's 1M-statement log the cache and the screen leave 22 texts
 * for the parser (and their findings' normalize and lexer calls), far too few to win it back. Measured with 50,000 distinct parses (/tmp bench, loaded
 * machine): first 1,000 parses 0.13 CPU s instead of 0.53, all 50,000 2.5-2.7 s instead of
 * 2.8-2.9 s, so even a parser-bound log does not lose. The flags are V8's own switches (not its
 * testing-only `--liftoff-only`); they are process-wide and must be set before the module is
 * compiled, hence here, the only place that compiles it.
 */
const NO_WASM_TIER_UP = '--no-wasm-tier-up --no-wasm-dynamic-tiering';

/** Loads the WASM parser; cheap to call again. */
export function loadParser(): Promise<void> {
  if (loading === null) {
    setFlagsFromString(NO_WASM_TIER_UP);
    loading = loadModule();
  }
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
