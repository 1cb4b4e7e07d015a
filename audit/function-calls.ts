/**
 * Function calls that create or read session state, found anywhere in an expression tree:
 * target lists, WHERE clauses, CTEs, subqueries, VALUES, RETURNING. Only built-in functions
 * count: an unqualified name or one qualified with `pg_catalog` (a user's
 * `myschema.pg_advisory_lock` is someone else's function). Which functions matter, and to which
 * check, is the checks' own claim (their `audit.claims.functions`); `set_config` is a SET and
 * goes by the setting it names.
 */
import { CLAIMS } from './audit-knowledge.js';
import { asNode, booleanOf, builtinName, child, constantOf, forEachNode, list, text } from '../common/ast-json.js';
import type { Hazard } from './audit-types.js';
import { checkForSetting } from './set-statement.js';

/** Every session-state hazard among the function calls under `root`. */
export function functionCallHazards(root: unknown): Hazard[] {
  const found: Array<{ hazard: Hazard; arg: string | null }> = [];
  const setups: Array<{ check: string; arg: string | null }> = [];
  forEachNode(root, (node) => {
    if (!Object.hasOwn(node, 'FuncCall')) return;
    const call = asNode(node['FuncCall']);
    const name = builtinName(call);
    const claim = name === null || name === 'set_config' ? null : CLAIMS.functionClaim(name);
    if (claim?.half === 'setup') setups.push({ check: claim.check, arg: firstArg(call) });
    const hazard = funcCallHazard(call);
    if (hazard !== null) found.push({ hazard, arg: firstArg(call) });
  });
  // One statement runs on one backend: a read of state the same statement sets up
  // (`SELECT nextval('s'), currval('s')`, or lastval() after any nextval) depends on nothing
  // an earlier transaction left, which is what the check's advice asks for.
  return found
    .filter(
      ({ hazard, arg }) =>
        hazard.cleanup === true ||
        !setups.some((s) => s.check === hazard.check && (arg === null || (s.arg !== null && s.arg === arg))),
    )
    .map(({ hazard }) => hazard);
}

/** The first argument of a call as comparable text (its parse tree without positions), or null. */
function firstArg(call: ReturnType<typeof asNode>): string | null {
  const first = list(call, 'args')[0];
  if (first === undefined) return null;
  return JSON.stringify(first, (key, value: unknown) => (key === 'location' ? undefined : value));
}

function funcCallHazard(call: ReturnType<typeof asNode>): Hazard | null {
  const name = builtinName(call);
  if (name === null) return null;
  if (name === 'set_config') return setConfigHazard(list(call, 'args'));
  // A call that only sets up state (nextval) is no finding on its own; the checks' claims say
  // which calls those are.
  const claim = CLAIMS.functionClaim(name);
  if (claim === null || claim.half === 'setup') return null;
  const hazard: Hazard = { check: claim.check, what: `${name}()`, certain: true };
  if (claim.half === 'cleanup') hazard.cleanup = true;
  return hazard;
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
  const check = checkForSetting(setting);
  const what = `set_config(${setting === null ? '?' : `'${setting}'`}, ..., ${isLocal === false ? 'false' : '?'})`;
  return { check, what, certain };
}
