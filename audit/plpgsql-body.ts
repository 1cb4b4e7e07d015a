/**
 * Hazards inside the PL/pgSQL body of a `DO` block. A DO block runs at once, so a `SET`,
 * `LISTEN`, temp table or session advisory lock inside it outlives it exactly like the same
 * statement sent on its own.
 *
 * Covered: every SQL statement of the body (PERFORM, plain statements, RETURN QUERY, FOR ... IN
 * query, cursors), every expression (IF conditions, assignments, declarations' defaults), and
 * `EXECUTE` of a constant string. Not covered: `EXECUTE` of a string computed at run time, and
 * DO blocks in other languages (reported as not analysed). Function bodies are not analysed:
 * creating a function runs none of it (the audit sees the calls, not what they do).
 */
import { asNode, child, constantOf, list, text } from '../common/ast-json.js';
import type { Hazard, StatementAnalysis } from './audit-types.js';
import { functionCallHazards } from './function-calls.js';
import {
  charOffset,
  parsePlpgsql,
  parseStatements,
  scanTokens,
  SqlParseFailure,
  type AstNode,
} from '../common/sql-parser.js';

/** Classifies one statement; passed in to keep this module free of an import cycle. */
export type StatementAnalyzer = (wrapper: AstNode, sql: string, depth: number) => StatementAnalysis;

/** DO inside EXECUTE inside DO...: deeper than this is not analysed. */
const MAX_DEPTH = 4;

/** PL/pgSQL statements whose `query` / `dynquery` is a string to execute, not SQL text. */
const DYNAMIC_STATEMENTS = new Set(['PLpgSQL_stmt_dynexecute', 'PLpgSQL_stmt_dynfors', 'PLpgSQL_stmt_open']);

/** PostgreSQL's RawParseMode values as the PL/pgSQL parser records them. */
const PARSE_MODE_DEFAULT = 0;
const PARSE_MODE_ASSIGN_FIRST = 3;

/**
 * Hazards of a DoStmt whose full statement text is `sql`. `problem` says what could not be
 * analysed (another language, a body that does not compile).
 */
export function doBlockHazards(
  stmt: AstNode,
  sql: string,
  depth: number,
  analyze: StatementAnalyzer,
): StatementAnalysis {
  const language = doLanguage(stmt);
  if (language !== 'plpgsql') return { hazards: [], problem: `DO block in language ${language}: body not analysed` };
  if (depth >= MAX_DEPTH) return { hazards: [], problem: 'DO block nested too deeply: body not analysed' };
  const parsed = parsePlpgsql(sql);
  if (!parsed.ok) return { hazards: [], problem: `PL/pgSQL body does not compile: ${parsed.error}` };
  const walker = new BodyWalker(depth, analyze);
  walker.visit(parsed.tree, false);
  return { hazards: walker.hazards, problem: walker.problems[0] ?? null };
}

function doLanguage(stmt: AstNode): string {
  for (const arg of list(stmt, 'args')) {
    const def = child(asNode(arg), 'DefElem');
    if (text(def, 'defname') === 'language')
      return (text(child(child(def, 'arg'), 'String'), 'sval') ?? 'plpgsql').toLowerCase();
  }
  return 'plpgsql';
}

class BodyWalker {
  readonly hazards: Hazard[] = [];
  readonly problems: string[] = [];

  constructor(
    private readonly depth: number,
    private readonly analyze: StatementAnalyzer,
  ) {}

  /** Walks the PL/pgSQL tree; `dynamic` marks the expression of an EXECUTE. */
  visit(value: unknown, dynamic: boolean): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item, false);
      return;
    }
    const node = asNode(value);
    if (node === null) return;
    for (const key in node) {
      const item = node[key];
      if (key === 'PLpgSQL_expr') this.expression(asNode(item), dynamic);
      else if (DYNAMIC_STATEMENTS.has(key)) {
        const inner = asNode(item);
        for (const field in inner) this.visit(inner[field], field === 'query' || field === 'dynquery');
      } else this.visit(item, false);
    }
  }

  private expression(expr: AstNode | null, dynamic: boolean): void {
    const query = text(expr, 'query');
    if (query === null) return;
    const mode = typeof expr?.['parseMode'] === 'number' ? expr['parseMode'] : PARSE_MODE_DEFAULT;
    if (mode === PARSE_MODE_DEFAULT) {
      this.statements(query);
      return;
    }
    // Expressions and assignment sources are parsed as the target list of a SELECT.
    const value = mode >= PARSE_MODE_ASSIGN_FIRST ? assignmentSource(query) : query;
    if (value === null) {
      this.problems.push(`PL/pgSQL assignment not analysed: ${query}`);
      return;
    }
    const select = this.parse(`SELECT ${value}`);
    if (select === null) return;
    for (const stmt of select) this.add(functionCallHazards(stmt.node));
    if (dynamic) this.constantExecute(select);
  }

  /** `EXECUTE 'LISTEN ch'`: a constant string is SQL the block will run. */
  private constantExecute(select: ReturnType<typeof parseStatements>): void {
    const target = asNode(list(child(select[0]?.node ?? null, 'SelectStmt'), 'targetList')[0]);
    const constant = constantOf(child(child(target, 'ResTarget'), 'val'));
    if (constant?.kind === 'string') this.statements(constant.value);
  }

  private statements(sql: string): void {
    const parsed = this.parse(sql);
    if (parsed === null) return;
    for (const stmt of parsed) {
      const result = this.analyze(stmt.node, stmt.text, this.depth + 1);
      this.add(result.hazards);
      if (result.problem !== null) this.problems.push(result.problem);
    }
  }

  private parse(sql: string): ReturnType<typeof parseStatements> | null {
    try {
      return parseStatements(sql);
    } catch (error) {
      const message = error instanceof SqlParseFailure ? error.message : String(error);
      this.problems.push(`statement in PL/pgSQL body does not parse (${message}): ${sql}`);
      return null;
    }
  }

  private add(hazards: Hazard[]): void {
    for (const h of hazards)
      this.hazards.push({ ...h, what: h.what.startsWith('DO block: ') ? h.what : `DO block: ${h.what}` });
  }
}

/**
 * The right-hand side of a PL/pgSQL assignment (`v := lastval()`), found with PostgreSQL's own
 * lexer so that `:=` inside a string or comment cannot mislead it.
 */
function assignmentSource(query: string): string | null {
  const tokens = scanTokens(query);
  const op = tokens?.find((t) => t.text === ':=' || t.text === '=');
  if (op === undefined) return null;
  return query.slice(charOffset(query, op.end));
}
