/**
 * Small, typed readers over libpg-query's JSON parse tree. The tree comes from protobuf JSON:
 * fields at their default value are omitted (a `false` boolean constant is `boolval: {}`), so
 * every reader treats "missing" as the default rather than as an error.
 */
import type { AstNode } from './sql-parser.js';

/** The value as a JSON object, or null. */
export function asNode(value: unknown): AstNode | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as AstNode) : null;
}

/** `node[key]` as an object, or null. */
export function child(node: AstNode | null, key: string): AstNode | null {
  return node === null ? null : asNode(node[key]);
}

/** `node[key]` as an array (empty when absent). */
export function list(node: AstNode | null, key: string): unknown[] {
  const value = node?.[key];
  return Array.isArray(value) ? value : [];
}

/** `node[key]` as a string, or null. */
export function text(node: AstNode | null, key: string): string | null {
  const value = node?.[key];
  return typeof value === 'string' ? value : null;
}

/** The single key of a node wrapper (`{ SelectStmt: {...} }` gives `SelectStmt`). */
export function nodeType(wrapper: AstNode): string | null {
  for (const key in wrapper) return key;
  return null;
}

/** A literal the audit can reason about, after unwrapping casts like `'true'::boolean`. */
export type Constant =
  { kind: 'string'; value: string } | { kind: 'bool'; value: boolean } | { kind: 'number'; value: number };

/** The constant behind an expression node, or null when it is not a plain literal. */
export function constantOf(expr: unknown): Constant | null {
  let node = asNode(expr);
  // Casts around a literal do not change which literal it is.
  for (let depth = 0; node !== null && 'TypeCast' in node && depth < 4; depth++) {
    node = asNode(child(child(node, 'TypeCast'), 'arg'));
  }
  const aConst = child(node, 'A_Const');
  if (aConst === null) return null;
  if ('sval' in aConst) return { kind: 'string', value: text(child(aConst, 'sval'), 'sval') ?? '' };
  if ('boolval' in aConst) return { kind: 'bool', value: child(aConst, 'boolval')?.['boolval'] === true };
  if ('ival' in aConst) {
    const ival = child(aConst, 'ival')?.['ival'];
    return { kind: 'number', value: typeof ival === 'number' ? ival : 0 };
  }
  return null;
}

/** A constant read as a PostgreSQL boolean input (`true`, `'t'`, `'on'`, `1`...), or null. */
export function booleanOf(constant: Constant | null): boolean | null {
  if (constant === null) return null;
  if (constant.kind === 'bool') return constant.value;
  if (constant.kind === 'number') return constant.value !== 0;
  const v = constant.value.trim().toLowerCase();
  if (['t', 'true', 'y', 'yes', 'on', '1'].includes(v)) return true;
  if (['f', 'false', 'n', 'no', 'off', '0'].includes(v)) return false;
  return null;
}

/** The `{ String: { sval } }` items of a name list, e.g. a FuncCall's `funcname`. */
export function nameParts(items: unknown[]): string[] {
  const parts: string[] = [];
  for (const item of items) {
    const sval = text(child(asNode(item), 'String'), 'sval');
    if (sval !== null) parts.push(sval);
  }
  return parts;
}

/**
 * Calls `visit` on every node under `root` (the root included), depth first. Iterative: deeply
 * nested expressions must not overflow the JS stack. Used by the audit's and watch's walks over
 * target lists, WHERE clauses, CTEs, subqueries, VALUES and RETURNING alike.
 */
export function forEachNode(root: unknown, visit: (node: AstNode) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    const node = asNode(value);
    if (node === null) continue;
    visit(node);
    for (const key in node) {
      const item = node[key];
      if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
}

/**
 * The name of a `FuncCall` when it calls a built-in function: unqualified, or qualified with
 * `pg_catalog` (a user's `myschema.pg_advisory_lock` is someone else's function); else null.
 */
export function builtinName(call: AstNode | null): string | null {
  const parts = nameParts(list(call, 'funcname'));
  if (parts.length === 0 || parts.length > 2) return null;
  if (parts.length === 2 && parts[0] !== 'pg_catalog') return null;
  return parts[parts.length - 1]!;
}
