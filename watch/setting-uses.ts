/**
 * Which statements really depend on a session setting, for the watch's "ran under" example.
 * A statement after `SET statement_timeout` or `SET ROLE` runs under it whatever it is, but
 * for the settings below only some statements mean something different under another value:
 *
 * | setting | a statement depends on it when it |
 * |---|---|
 * | search_path | names a relation without a schema (not a CTE, not a temporary one), or calls current_schema() / current_schemas() |
 * | TimeZone, DateStyle | computes or casts dates and times (now(), CURRENT_TIMESTAMP, ::timestamptz, date_trunc...) |
 * | IntervalStyle | casts to interval or computes one (age(), make_interval()...) |
 * | standard_conforming_strings | has a string literal with a backslash (it reads differently when off) |
 * | application_name | never by running: only SHOW and current_setting() read it (explicit uses) |
 *
 * A temporary relation lives in the session's pg_temp whatever search_path says, and pg_temp is
 * searched first for relation names: `CREATE TEMP TABLE scratch` does not depend on the path,
 * and neither does a later `SELECT ... FROM scratch` once the session has that temp table
 * (which only the session's state knows: {@link useOfSetting} takes it as `isTemp`).
 *
 * Everything comes from PostgreSQL's parse tree, never from the text.
 */
import { asNode, builtinName, child, forEachNode, list, nameParts, text } from '../common/ast-json.js';
import type { AstNode } from '../common/sql-parser.js';
import { isTempRelation } from '../common/temp-relation.js';

/** What in one statement can depend on a setting; each single field names the first such thing found. */
export interface SettingUses {
  /** Relations named without a schema that search_path would resolve, distinct, in text order. */
  relations: readonly string[];
  /** `current_schema()`, `current_schemas()` or `CURRENT_SCHEMA`. */
  schemaFunction: string | null;
  /** `now()`, `CURRENT_TIMESTAMP`, `::timestamptz`. */
  dateTime: string | null;
  /** `::interval`, `age()`. */
  interval: string | null;
  /** `a string literal with a backslash`. */
  backslash: string | null;
}

const DATE_TIME_FUNCTIONS = new Set([
  'now',
  'statement_timestamp',
  'transaction_timestamp',
  'clock_timestamp',
  'timeofday',
  'date_trunc',
  'date_part',
  'extract',
  'date_bin',
  'to_char',
  'to_timestamp',
  'to_date',
  'make_timestamptz',
  'age',
]);
const INTERVAL_FUNCTIONS = new Set(['age', 'make_interval', 'justify_interval', 'justify_days', 'justify_hours']);
const DATE_TIME_TYPES = new Set(['timestamptz', 'timestamp', 'date', 'time', 'timetz']);
const SCHEMA_FUNCTIONS = new Set(['current_schema', 'current_schemas']);

/** The uses of settings in one parsed statement (the statement node, its type unwrapped). */
export function settingUses(stmt: AstNode): SettingUses {
  const uses: Omit<SettingUses, 'relations'> = {
    schemaFunction: null,
    dateTime: null,
    interval: null,
    backslash: null,
  };
  // A CTE's name looks like an unqualified relation where it is used: it resolves to the CTE.
  const ctes = new Set<string>();
  forEachNode(stmt, (node) => {
    const name = text(node, 'ctename');
    if (name !== null) ctes.add(name);
  });
  const relations: { name: string; at: number }[] = [];
  forEachNode(stmt, (node) => {
    if (typeof node['relname'] === 'string' && typeof node['relpersistence'] === 'string') {
      const schema = text(node, 'schemaname');
      const at = typeof node['location'] === 'number' ? node['location'] : Infinity;
      // pg_catalog is searched first unless the path names it, and the pg_ prefix is the
      // system's (a user table named pg_* is possible but against the docs' advice): an
      // unqualified pg_class or pg_stat_activity resolves the same whatever search_path says.
      // The relation a CREATE TEMP names goes to pg_temp whatever the path (issue 40: `CREATE
      // TEMP TABLE scratch` was reported as resolving scratch through search_path).
      const unqualified = schema === null && !isTempRelation(node);
      if (unqualified && !ctes.has(node['relname']) && !node['relname'].startsWith('pg_'))
        relations.push({ name: node['relname'], at });
    }
    const call = asNode(node['FuncCall']);
    if (call !== null) {
      const fn = builtinName(call);
      if (fn !== null && SCHEMA_FUNCTIONS.has(fn)) uses.schemaFunction ??= `${fn}()`;
      if (fn !== null && DATE_TIME_FUNCTIONS.has(fn)) uses.dateTime ??= `${fn}()`;
      if (fn !== null && INTERVAL_FUNCTIONS.has(fn)) uses.interval ??= `${fn}()`;
    }
    const svf = text(asNode(node['SQLValueFunction']), 'op');
    if (svf !== null) {
      if (svf === 'SVFOP_CURRENT_SCHEMA') uses.schemaFunction ??= 'CURRENT_SCHEMA';
      else if (/TIME|DATE/.test(svf)) uses.dateTime ??= svf.replace(/^SVFOP_/, '').replace(/_N$/, '');
    }
    const cast = asNode(node['TypeCast']);
    if (cast !== null) {
      const type = nameParts(list(child(cast, 'typeName'), 'names')).pop();
      if (type !== undefined && DATE_TIME_TYPES.has(type)) uses.dateTime ??= `::${type}`;
      if (type === 'interval') uses.interval ??= '::interval';
    }
    const literal = text(child(asNode(node['A_Const']), 'sval'), 'sval');
    if (literal !== null && literal.includes('\\')) uses.backslash ??= 'a string literal with a backslash';
  });
  // In the text's order (the walk's order is not the text's), each name once.
  const names = [...new Set(relations.sort((a, b) => a.at - b.at).map((r) => r.name))];
  return { ...uses, relations: names };
}

/**
 * Whether a statement with `uses` (that `relies` on the session at all) depends on setting
 * `key` (lower-case), and how, for the report: null when its meaning does not change with it.
 * Settings not listed in the table above are relied on by every such statement. `isTemp` says
 * whether the session has a temporary relation of that name (found in pg_temp first).
 */
export function useOfSetting(
  key: string,
  uses: SettingUses,
  relies: boolean,
  isTemp: (relation: string) => boolean = () => false,
): string | null {
  if (!relies) return null;
  switch (key) {
    case 'search_path': {
      // A relation beats a function: it is what the statement reads or writes.
      const relation = uses.relations.find((name) => !isTemp(name));
      if (relation !== undefined) return `resolves relation ${relation} through search_path`;
      return uses.schemaFunction === null ? null : `resolves ${uses.schemaFunction} through search_path`;
    }
    case 'timezone':
      return uses.dateTime === null ? null : `${uses.dateTime} depends on TimeZone`;
    case 'datestyle':
      return uses.dateTime === null ? null : `${uses.dateTime} depends on DateStyle`;
    case 'intervalstyle':
      return uses.interval === null ? null : `${uses.interval} depends on IntervalStyle`;
    case 'standard_conforming_strings':
      return uses.backslash === null ? null : `${uses.backslash} depends on standard_conforming_strings`;
    case 'application_name':
      return null;
    default:
      return `runs with ${key} as set`;
  }
}

/** No setting is used (statements that do not run, or could not be read). */
export const NO_USES: SettingUses = {
  relations: [],
  schemaFunction: null,
  dateTime: null,
  interval: null,
  backslash: null,
};
