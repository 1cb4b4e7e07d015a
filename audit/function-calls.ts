/**
 * Function calls that create or read session state, found anywhere in an expression tree:
 * target lists, WHERE clauses, CTEs, subqueries, VALUES, RETURNING. Only built-in functions
 * count: an unqualified name or one qualified with `pg_catalog` (a user's
 * `myschema.pg_advisory_lock` is someone else's function).
 */
import { asNode, booleanOf, child, constantOf, list, nameParts, text } from './ast-json.js';
import type { Hazard } from './audit-types.js';
import { checkForSetting } from './set-statement.js';

/** Session-level advisory lock functions; the `_xact_` variants are released at commit. */
const SESSION_ADVISORY = new Set([
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
]);

/** Their unlocks: the cleanup half of a session lock, not a break of their own. */
const ADVISORY_UNLOCK = new Set(['pg_advisory_unlock', 'pg_advisory_unlock_shared', 'pg_advisory_unlock_all']);

/** Read the value of the backend's last nextval(): meaningless on another backend. */
const SEQUENCE_STATE = new Set(['currval', 'lastval']);

/** Every session-state hazard among the function calls under `root`. */
export function functionCallHazards(root: unknown): Hazard[] {
  const hazards: Hazard[] = [];
  // Iterative walk: deeply nested expressions must not overflow the JS stack.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    const node = asNode(value);
    if (node === null) continue;
    for (const key in node) {
      const item = node[key];
      if (key === 'FuncCall') {
        const hazard = funcCallHazard(asNode(item));
        if (hazard !== null) hazards.push(hazard);
      }
      if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return hazards;
}

function funcCallHazard(call: ReturnType<typeof asNode>): Hazard | null {
  const parts = nameParts(list(call, 'funcname'));
  if (parts.length === 0 || parts.length > 2) return null;
  if (parts.length === 2 && parts[0] !== 'pg_catalog') return null;
  const name = parts[parts.length - 1]!;
  if (SESSION_ADVISORY.has(name)) return { check: 'locks/advisory-session', what: `${name}()`, certain: true };
  if (ADVISORY_UNLOCK.has(name))
    return { check: 'locks/advisory-session', what: `${name}()`, certain: true, cleanup: true };
  if (SEQUENCE_STATE.has(name)) return { check: 'sequences/lastval', what: `${name}()`, certain: true };
  if (name === 'set_config') return setConfigHazard(list(call, 'args'));
  return null;
}

/**
 * `set_config(setting_name, new_value, is_local)`: with `is_local` false it is a session-level
 * SET hidden in a query. When the arguments are not literals (pg_stat_statements shows
 * `set_config($1, $2, $3)`) the finding is kept but marked uncertain.
 */
function setConfigHazard(args: unknown[]): Hazard | null {
  const positional: unknown[] = [];
  const named = new Map<string, unknown>();
  for (const arg of args) {
    const namedArg = child(asNode(arg), 'NamedArgExpr');
    if (namedArg !== null) named.set(text(namedArg, 'name') ?? '', namedArg['arg']);
    else positional.push(arg);
  }
  const nameExpr = named.get('setting_name') ?? positional[0];
  const localExpr = named.get('is_local') ?? positional[2];
  const isLocal = booleanOf(constantOf(localExpr));
  if (isLocal === true) return null;
  const nameConst = constantOf(nameExpr);
  const setting = nameConst?.kind === 'string' ? nameConst.value : null;
  const certain = isLocal === false && setting !== null;
  const check = setting === null ? 'session/set-leak' : checkForSetting(setting);
  const what = `set_config(${setting === null ? '?' : `'${setting}'`}, ..., ${isLocal === false ? 'false' : '?'})`;
  return { check, what, certain };
}
