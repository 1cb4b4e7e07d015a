/**
 * Whether a relation named in a parse tree is temporary, one rule for the audit's classifier
 * and the watch. A temporary relation lives in the session's own pg_temp schema whatever
 * search_path says, and PostgreSQL looks there first for an unqualified relation name, so
 * neither creating one nor naming one the session created depends on search_path.
 */
import { text } from './ast-json.js';
import type { AstNode } from './sql-parser.js';

/** `pg_temp` (the session's own temp schema) or `pg_temp_N` (its real name). */
export function isTempSchema(schema: string | null): boolean {
  return schema !== null && (schema === 'pg_temp' || schema.startsWith('pg_temp_'));
}

/** A RangeVar with `relpersistence 't'` (TEMP / TEMPORARY), or qualified with pg_temp. */
export function isTempRelation(rangeVar: AstNode | null): boolean {
  if (rangeVar === null) return false;
  return text(rangeVar, 'relpersistence') === 't' || isTempSchema(text(rangeVar, 'schemaname'));
}
