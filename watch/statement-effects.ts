/**
 * What one SQL statement does to the session state the watch follows: creates it (SET,
 * PREPARE, LISTEN, pg_advisory_lock, CREATE TEMP, DECLARE ... WITH HOLD, nextval), undoes it
 * (RESET, DEALLOCATE, UNLISTEN, unlock, DROP, CLOSE, DISCARD) or uses it (EXECUTE, FETCH, a
 * temp table's name, currval, current_setting, SHOW). The audit decides which settings matter
 * (audit/set-statement.ts); this module adds the names, so a use in one transaction can be
 * matched with the creation in an earlier one. The check a creation depends on is the one that
 * claims its statement kind, setting or function (the checks' `audit.claims`). Everything comes
 * from PostgreSQL's own parser, never from patterns over the text.
 */
import type { CleanupFunction, StateFunction } from '../engine/record/audit-claims.js';
import { CLAIMS } from '../suites/catalogue.js';
import {
  asNode,
  booleanOf,
  builtinName,
  child,
  constantOf,
  forEachNode,
  list,
  nameParts,
  nodeType,
  text,
} from '../common/ast-json.js';
import { BoundedCache } from '../common/bounded-cache.js';
import { checkForSetting, setStatementHazard } from '../audit/set-statement.js';
import { parseStatements, SqlParseFailure, type AstNode } from '../common/sql-parser.js';
import { isTempRelation, isTempSchema } from '../common/temp-relation.js';
import { NO_USES, settingUses, type SettingUses } from './setting-uses.js';
import type { StateKind, WatchCheckId } from './watch-types.js';

/** One effect on the session's state; `key` `*` in an undo means every item of that kind. */
export type Effect =
  | { op: 'create'; kind: StateKind; key: string; check: WatchCheckId; what: string; certain: boolean }
  | { op: 'undo'; kind: StateKind; key: string }
  | { op: 'use'; kind: StateKind; key: string; fallback?: string; what: string };

/** A statement's effects, and whether it runs under the session's settings and locks at all. */
export interface StatementEffects {
  effects: Effect[];
  /** False for transaction control and SET/RESET/SHOW/DISCARD themselves. */
  relies: boolean;
  /** What in it depends on settings such as search_path or TimeZone (watch/setting-uses.ts). */
  uses: SettingUses;
}

/** The effects of a whole text (one or more statements), or why it could not be parsed. */
export type TextEffects =
  { ok: true; statements: (StatementEffects & { text: string })[] } | { ok: false; error: string };

const CURSOR_OPT_HOLD = 0x20;
const NOT_RELYING = new Set([
  'TransactionStmt',
  'VariableSetStmt',
  'VariableShowStmt',
  'DiscardStmt',
  'DeallocateStmt',
  'UnlistenStmt',
  'ListenStmt',
]);
/** Calls that take a session advisory lock, keyed by their arguments. */
const LOCKS: ReadonlySet<StateFunction> = new Set([
  'pg_advisory_lock',
  'pg_try_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock_shared',
]);
/** Calls that release one lock (`pg_advisory_unlock_all` releases every lock, without a key). */
const UNLOCKS: ReadonlySet<CleanupFunction> = new Set(['pg_advisory_unlock', 'pg_advisory_unlock_shared']);

/** Whether `name` is one of `set` (narrowing it to the set's names). */
function isOneOf<T extends string>(set: ReadonlySet<T>, name: string): name is T {
  return (set as ReadonlySet<string>).has(name);
}

/** Parses and analyses texts once per distinct text while it stays cached (bounded). */
export class EffectsCache {
  private readonly cache = new BoundedCache<TextEffects>(20_000, 16 * 1024 * 1024, 64 * 1024);
  parsedTexts = 0;

  effectsOf(sql: string): TextEffects {
    const hit = this.cache.get(sql);
    if (hit !== undefined) return hit;
    this.parsedTexts++;
    const result = textEffects(sql);
    this.cache.set(sql, result);
    return result;
  }
}

/** Parses `sql` and returns each statement's effects. */
export function textEffects(sql: string): TextEffects {
  if (sql.trim() === '') return { ok: true, statements: [] };
  try {
    return { ok: true, statements: parseStatements(sql).map((s) => ({ ...statementEffects(s.node), text: s.text })) };
  } catch (error) {
    if (error instanceof SqlParseFailure) return { ok: false, error: error.message };
    throw error;
  }
}

/** The effects of one parsed statement. */
export function statementEffects(wrapper: AstNode): StatementEffects {
  const type = nodeType(wrapper);
  const stmt = type === null ? null : child(wrapper, type);
  const effects: Effect[] = [];
  if (type === null || stmt === null) return { effects, relies: false, uses: NO_USES };
  switch (type) {
    case 'VariableSetStmt':
      setEffects(stmt, effects);
      break;
    case 'VariableShowStmt': {
      const name = (text(stmt, 'name') ?? '').toLowerCase();
      effects.push({ op: 'use', kind: 'guc', key: name, what: `SHOW ${name}` });
      break;
    }
    case 'DiscardStmt':
      discardEffects(text(stmt, 'target'), effects);
      break;
    case 'PrepareStmt': {
      const name = text(stmt, 'name') ?? '';
      effects.push({
        op: 'create',
        kind: 'prepared',
        key: name,
        check: CLAIMS.checkOfStatement('PREPARE'),
        what: `PREPARE ${name}`,
        certain: true,
      });
      break;
    }
    case 'ExecuteStmt': {
      const name = text(stmt, 'name') ?? '';
      effects.push({ op: 'use', kind: 'prepared', key: name, what: `EXECUTE ${name}` });
      break;
    }
    case 'DeallocateStmt':
      // SQL and protocol-level statements share one namespace per backend.
      effects.push({ op: 'undo', kind: 'prepared', key: stmt['isall'] === true ? '*' : (text(stmt, 'name') ?? '') });
      break;
    case 'DeclareCursorStmt': {
      const options = typeof stmt['options'] === 'number' ? stmt['options'] : 0;
      const name = text(stmt, 'portalname') ?? '';
      if ((options & CURSOR_OPT_HOLD) !== 0)
        effects.push({
          op: 'create',
          kind: 'cursor',
          key: name,
          check: CLAIMS.checkOfStatement('DECLARE WITH HOLD'),
          what: `DECLARE ${name} CURSOR WITH HOLD`,
          certain: true,
        });
      break;
    }
    case 'FetchStmt': {
      const name = text(stmt, 'portalname') ?? '';
      effects.push({
        op: 'use',
        kind: 'cursor',
        key: name,
        what: `${stmt['ismove'] === true ? 'MOVE' : 'FETCH'} ${name}`,
      });
      break;
    }
    case 'ClosePortalStmt': {
      const name = text(stmt, 'portalname');
      if (name !== null) effects.push({ op: 'use', kind: 'cursor', key: name, what: `CLOSE ${name}` });
      effects.push({ op: 'undo', kind: 'cursor', key: name ?? '*' });
      break;
    }
    case 'ListenStmt': {
      const name = text(stmt, 'conditionname') ?? '';
      effects.push({
        op: 'create',
        kind: 'listen',
        key: name,
        check: CLAIMS.checkOfStatement('LISTEN'),
        what: `LISTEN ${name}`,
        certain: true,
      });
      break;
    }
    case 'UnlistenStmt':
      effects.push({ op: 'undo', kind: 'listen', key: text(stmt, 'conditionname') ?? '*' });
      break;
    case 'CreateStmt':
      tempCreate(child(stmt, 'relation'), text(stmt, 'oncommit'), 'CREATE TEMP TABLE', effects);
      break;
    case 'CreateTableAsStmt': {
      const into = child(stmt, 'into');
      tempCreate(child(into, 'rel'), text(into, 'onCommit'), 'CREATE TEMP TABLE AS', effects);
      break;
    }
    case 'ViewStmt':
      tempCreate(child(stmt, 'view'), null, 'CREATE TEMP VIEW', effects);
      break;
    case 'CreateSeqStmt':
      tempCreate(child(stmt, 'sequence'), null, 'CREATE TEMP SEQUENCE', effects);
      break;
    case 'DropStmt':
      for (const object of list(stmt, 'objects')) {
        const parts = nameParts(list(child(asNode(object), 'List'), 'items'));
        const name = parts[parts.length - 1];
        if (name !== undefined && (parts.length === 1 || isTempSchema(parts[0]!)))
          effects.push({ op: 'undo', kind: 'temp', key: name });
      }
      break;
    case 'SelectStmt': {
      const into = child(stmt, 'intoClause');
      tempCreate(child(into, 'rel'), text(into, 'onCommit'), 'SELECT INTO TEMP', effects);
      break;
    }
    default:
      break;
  }
  // A serial column's default calls nextval() out of sight: an INSERT may set lastval().
  if (type === 'InsertStmt')
    effects.push({
      op: 'create',
      kind: 'sequence',
      key: '?',
      check: CLAIMS.checkOfFunction('nextval'),
      what: 'INSERT (a serial default may call nextval())',
      certain: false,
    });
  if (type !== 'DropStmt' && type !== 'CreateStmt') walkExpressions(stmt, effects);
  const relies = !NOT_RELYING.has(type);
  return { effects, relies, uses: relies ? settingUses(stmt) : NO_USES };
}

function setEffects(stmt: AstNode, effects: Effect[]): void {
  const hazard = setStatementHazard(stmt);
  // SET LOCAL, SET TRANSACTION and transaction-only settings end with the transaction.
  if (hazard === null) return;
  const kind = text(stmt, 'kind');
  const name = (text(stmt, 'name') ?? '').toLowerCase();
  if (kind === 'VAR_RESET_ALL') {
    effects.push({ op: 'undo', kind: 'guc', key: '*' });
    return;
  }
  const firstArg = constantOf(list(stmt, 'args')[0]);
  const isNone = name === 'role' && firstArg?.kind === 'string' && firstArg.value.toLowerCase() === 'none';
  if (kind === 'VAR_RESET' || kind === 'VAR_SET_DEFAULT' || isNone) {
    effects.push({ op: 'undo', kind: 'guc', key: name });
    return;
  }
  effects.push({
    op: 'create',
    kind: 'guc',
    key: name,
    check: hazard.check,
    what: hazard.what,
    certain: hazard.certain,
  });
}

function discardEffects(target: string | null, effects: Effect[]): void {
  const kinds: StateKind[] =
    target === 'DISCARD_ALL'
      ? ['guc', 'prepared', 'cursor', 'temp', 'listen', 'lock', 'sequence']
      : target === 'DISCARD_TEMP'
        ? ['temp']
        : target === 'DISCARD_SEQUENCES'
          ? ['sequence']
          : [];
  for (const kind of kinds) effects.push({ op: 'undo', kind, key: '*' });
}

function tempCreate(rangeVar: AstNode | null, onCommit: string | null, what: string, effects: Effect[]): void {
  if (rangeVar === null) return;
  // ON COMMIT DROP lives and dies inside its transaction: nothing is left behind.
  if (!isTempRelation(rangeVar) || onCommit === 'ONCOMMIT_DROP') return;
  const name = text(rangeVar, 'relname') ?? '';
  effects.push({
    op: 'create',
    kind: 'temp',
    key: name,
    check: CLAIMS.checkOfStatement('CREATE TEMP'),
    what: `${what} ${name}`,
    certain: true,
  });
}

/**
 * Function calls and relation names anywhere in the statement: set_config, current_setting,
 * advisory locks, nextval/currval/lastval, and unqualified (or pg_temp) relations that may be
 * temp tables. Iterative, so deep expressions cannot overflow the stack.
 */
function walkExpressions(root: unknown, effects: Effect[]): void {
  forEachNode(root, (node) => {
    // A RangeVar appears wrapped in FROM lists but bare in fields such as InsertStmt.relation:
    // recognise it by its own fields.
    if (typeof node['relname'] === 'string' && typeof node['relpersistence'] === 'string') relationUse(node, effects);
    if (Object.hasOwn(node, 'FuncCall')) callEffects(asNode(node['FuncCall']), effects);
  });
}

function relationUse(rangeVar: AstNode | null, effects: Effect[]): void {
  const schema = text(rangeVar, 'schemaname');
  const name = text(rangeVar, 'relname');
  if (name === null || (schema !== null && !isTempSchema(schema))) return;
  effects.push({ op: 'use', kind: 'temp', key: name, what: name });
}

function callEffects(call: AstNode | null, effects: Effect[]): void {
  const name = builtinName(call);
  if (name === null) return;
  const args = list(call, 'args');
  if (isOneOf(LOCKS, name)) {
    const key = lockKey(name, args);
    effects.push({
      op: 'create',
      kind: 'lock',
      key,
      check: CLAIMS.checkOfFunction(name),
      what: `${name}(${key})`,
      certain: true,
    });
  } else if (isOneOf(UNLOCKS, name)) {
    const key = lockKey(name, args);
    effects.push({ op: 'use', kind: 'lock', key, what: `${name}(${key})` }, { op: 'undo', kind: 'lock', key });
  } else if (name === 'pg_advisory_unlock_all') {
    effects.push({ op: 'undo', kind: 'lock', key: '*' });
  } else if (name === 'nextval' || name === 'setval') {
    const seq = stringArg(args[0]);
    effects.push({
      op: 'create',
      kind: 'sequence',
      key: seq ?? '?',
      check: CLAIMS.checkOfFunction(name),
      what: `${name}(${seq === null ? '?' : `'${seq}'`})`,
      certain: seq !== null,
    });
  } else if (name === 'currval') {
    const seq = stringArg(args[0]);
    effects.push({
      op: 'use',
      kind: 'sequence',
      key: seq ?? '?',
      fallback: '?',
      what: `currval(${seq === null ? '?' : `'${seq}'`})`,
    });
  } else if (name === 'lastval') {
    effects.push({ op: 'use', kind: 'sequence', key: '*', fallback: '?', what: 'lastval()' });
  } else if (name === 'set_config') {
    setConfigEffect(args, effects);
  } else if (name === 'current_setting') {
    const setting = stringArg(args[0]);
    if (setting !== null)
      effects.push({ op: 'use', kind: 'guc', key: setting.toLowerCase(), what: `current_setting('${setting}')` });
  }
}

/** `set_config(name, value, is_local)`; an is_local that is not a literal may be false. */
function setConfigEffect(args: unknown[], effects: Effect[]): void {
  const setting = stringArg(args[0]);
  const isLocal = booleanOf(constantOf(args[2]));
  if (isLocal === true || setting === null) return;
  const key = setting.toLowerCase();
  effects.push({
    op: 'create',
    kind: 'guc',
    key,
    check: checkForSetting(key),
    what: `set_config('${setting}', ..., ${isLocal === false ? 'false' : '?'})`,
    certain: isLocal === false,
  });
}

/** The lock's key as written: constants, or `$n` placeholders the tracker fills from Bind. */
function lockKey(name: string, args: unknown[]): string {
  const shared = name.endsWith('_shared') ? 'shared ' : '';
  return (
    shared +
    args
      .map((arg) => {
        const c = constantOf(arg);
        if (c !== null) return String(c.value);
        // bigint literals (node-pg-migrate's lock id) come as A_Const's fval string, not ival.
        const big = text(child(child(asNode(arg), 'A_Const'), 'fval'), 'fval');
        if (big !== null) return big;
        const param = child(asNode(arg), 'ParamRef');
        return param !== null ? `$${typeof param['number'] === 'number' ? param['number'] : 0}` : '?';
      })
      .join(',')
  );
}

function stringArg(arg: unknown): string | null {
  const c = constantOf(arg);
  return c?.kind === 'string' ? c.value : null;
}
