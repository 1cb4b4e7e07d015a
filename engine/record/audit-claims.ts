/**
 * Which application SQL depends on which check, declared by the checks themselves. The audit
 * (static SQL) and watch (live traffic) recognise statements, settings and built-in function
 * calls by reading the parser's tree; what each recognised thing means for a pooler is the
 * business of the one check that claims it. This module holds the closed vocabulary of things
 * the classifiers can recognise, validates that every item of it is claimed by exactly one check,
 * and answers "which check claims X".
 *
 * Each vocabulary is split into halves: `state` leaves session state behind or relies on state
 * an earlier transaction left (a finding), `cleanup` undoes it (reported beside the findings,
 * never a break). Functions have a third half, `setup`: calls that create state which matters
 * only once something reads it (`nextval` before `currval`); the watch pairs them with the later
 * read, the audit (one statement at a time) does not report them.
 */

/** Statement kinds that leave or rely on session state. */
export const STATE_STATEMENTS = [
  'LISTEN',
  'PREPARE',
  'EXECUTE',
  'DECLARE WITH HOLD',
  /** CREATE TEMP TABLE / VIEW / SEQUENCE, CREATE TEMP TABLE AS, SELECT INTO TEMP (not ON COMMIT DROP). */
  'CREATE TEMP',
  /** A driver's named statement (extended protocol Parse with a name), seen in traffic or logs. */
  'protocol named statement',
] as const;

/** Statement kinds that undo session state: the cleanup half of a pattern. */
export const CLEANUP_STATEMENTS = [
  'UNLISTEN',
  'DEALLOCATE',
  'DISCARD TEMP',
  'DISCARD SEQUENCES',
  'RESET ALL',
  'SET ROLE NONE',
] as const;

/** Built-in functions whose call leaves or reads state kept by the backend past the transaction. */
export const STATE_FUNCTIONS = [
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'currval',
  'lastval',
] as const;

/** Built-in functions that create state harmless until a later call reads it. */
export const SETUP_FUNCTIONS = ['nextval', 'setval'] as const;

/** Built-in functions that undo session state. */
export const CLEANUP_FUNCTIONS = ['pg_advisory_unlock', 'pg_advisory_unlock_shared', 'pg_advisory_unlock_all'] as const;

export type StateStatement = (typeof STATE_STATEMENTS)[number];
export type CleanupStatement = (typeof CLEANUP_STATEMENTS)[number];
export type StatementKind = StateStatement | CleanupStatement;
export type StateFunction = (typeof STATE_FUNCTIONS)[number];
export type SetupFunction = (typeof SETUP_FUNCTIONS)[number];
export type CleanupFunction = (typeof CLEANUP_FUNCTIONS)[number];
export type SessionFunction = StateFunction | SetupFunction | CleanupFunction;
export type FunctionHalf = 'state' | 'setup' | 'cleanup';

/**
 * Settings whose session-level `SET`, `RESET`, `SET ... TO DEFAULT` or `set_config(..., false)`
 * a check covers (whether it is a change or a cleanup is the statement's business). A name is
 * matched first against every check's `names`, then against `dotted`, then `anyOther`, so an
 * exact claim always wins over a pattern.
 */
export interface SettingsClaim {
  /** Exact names in lower case, as the parser gives them (`SET TIME ZONE` is `timezone`). */
  names?: readonly string[];
  /** Every name with a dot in it (`app.tenant_id`): settings of extensions and applications. */
  dotted?: true;
  /** Every setting nobody else claims, and a setting the statement does not name (`set_config($1, ...)`). */
  anyOther?: true;
}

/** What a check recognises in application SQL; every list is a closed vocabulary above. */
export interface AuditClaims {
  statements?: { state?: readonly StateStatement[]; cleanup?: readonly CleanupStatement[] };
  settings?: SettingsClaim;
  functions?: {
    state?: readonly StateFunction[];
    setup?: readonly SetupFunction[];
    cleanup?: readonly CleanupFunction[];
  };
}

/** The part of a check definition the claims are read from. */
export interface ClaimingCheck<Id extends string = string> {
  id: Id;
  audit?: { claims: AuditClaims };
}

/** A built-in function call as one check claims it. */
export interface FunctionClaim<Id extends string> {
  check: Id;
  half: FunctionHalf;
}

/** Answers "which check claims this" for the classifiers; built by {@link claimIndex}. */
export interface ClaimIndex<Id extends string> {
  /** The check a recognised statement kind depends on. */
  checkOfStatement(kind: StatementKind): Id;
  /** The check covering setting `name` (any case), or the catch-all for a setting not named (null). */
  checkOfSetting(name: string | null): Id;
  /** The check and half of a built-in function call, or null when no check claims that name. */
  functionClaim(name: string): FunctionClaim<Id> | null;
  /** The check of a function of the vocabulary (each is claimed, so never null). */
  checkOfFunction(name: SessionFunction): Id;
}

const CLEANUP_KINDS: ReadonlySet<string> = new Set(CLEANUP_STATEMENTS);

/** Whether a statement kind is the cleanup half of a pattern (`UNLISTEN`, `RESET ALL`...). */
export function isCleanupStatement(kind: StatementKind): kind is CleanupStatement {
  return CLEANUP_KINDS.has(kind);
}

/** Every vocabulary item with its half, for counting claims. */
const STATEMENT_HALVES: readonly (readonly [StatementKind, 'state' | 'cleanup'])[] = [
  ...STATE_STATEMENTS.map((k) => [k, 'state'] as const),
  ...CLEANUP_STATEMENTS.map((k) => [k, 'cleanup'] as const),
];
const FUNCTION_HALVES: readonly (readonly [SessionFunction, FunctionHalf])[] = [
  ...STATE_FUNCTIONS.map((f) => [f, 'state'] as const),
  ...SETUP_FUNCTIONS.map((f) => [f, 'setup'] as const),
  ...CLEANUP_FUNCTIONS.map((f) => [f, 'cleanup'] as const),
];

interface Claimed<Id> {
  statements: Map<string, Id[]>;
  functions: Map<string, { check: Id; half: FunctionHalf }[]>;
  settings: Map<string, Id[]>;
  dotted: Id[];
  anyOther: Id[];
  problems: string[];
}

function collect<Id extends string>(checks: readonly ClaimingCheck<Id>[]): Claimed<Id> {
  const out: Claimed<Id> = {
    statements: new Map(),
    functions: new Map(),
    settings: new Map(),
    dotted: [],
    anyOther: [],
    problems: [],
  };
  const add = <V>(map: Map<string, V[]>, key: string, value: V): void => {
    map.set(key, [...(map.get(key) ?? []), value]);
  };
  for (const check of checks) {
    const claims = check.audit?.claims;
    if (claims === undefined) continue;
    const halves = [
      ...(claims.statements?.state ?? []).map((k) => [k, 'state'] as const),
      ...(claims.statements?.cleanup ?? []).map((k) => [k, 'cleanup'] as const),
    ];
    for (const [kind, half] of halves) {
      const known = STATEMENT_HALVES.find(([k]) => k === kind);
      if (known === undefined)
        out.problems.push(`${check.id} claims statement kind "${kind}", which is not in the vocabulary`);
      else if (known[1] !== half)
        out.problems.push(`${check.id} claims "${kind}" as ${half}, but it is a ${known[1]} statement`);
      add(out.statements, kind, check.id);
    }
    const functions = claims.functions ?? {};
    for (const half of ['state', 'setup', 'cleanup'] as const) {
      for (const name of functions[half] ?? []) {
        const known = FUNCTION_HALVES.find(([f]) => f === name);
        if (known === undefined)
          out.problems.push(`${check.id} claims function ${name}(), which is not in the vocabulary`);
        else if (known[1] !== half)
          out.problems.push(`${check.id} claims ${name}() as ${half}, but it is a ${known[1]} function`);
        add(out.functions, name, { check: check.id, half });
      }
    }
    for (const name of claims.settings?.names ?? []) {
      if (name !== name.toLowerCase()) out.problems.push(`${check.id} claims setting "${name}": names are lower case`);
      add(out.settings, name, check.id);
    }
    if (claims.settings?.dotted === true) out.dotted.push(check.id);
    if (claims.settings?.anyOther === true) out.anyOther.push(check.id);
    const count =
      halves.length +
      (['state', 'setup', 'cleanup'] as const).reduce((n, half) => n + (functions[half]?.length ?? 0), 0) +
      (claims.settings?.names?.length ?? 0) +
      (claims.settings?.dotted === true ? 1 : 0) +
      (claims.settings?.anyOther === true ? 1 : 0);
    if (count === 0) out.problems.push(`${check.id} has an audit hint that claims nothing: no SQL would ever name it`);
  }
  return out;
}

function exactlyOne(what: string, owners: readonly string[]): string | null {
  if (owners.length === 1) return null;
  if (owners.length === 0) return `${what} is claimed by no check`;
  return `${what} is claimed by more than one check: ${owners.join(', ')}`;
}

/**
 * Everything wrong with the checks' claims: an item of the vocabulary claimed by no check (the
 * classifiers would recognise it and have nowhere to send it) or by several (precedence would be
 * an accident of order), a setting name not in lower case, a claim outside the vocabulary or in
 * the wrong half, an audit hint that claims nothing. Empty when the catalogue is sound.
 */
export function claimProblems(checks: readonly ClaimingCheck[]): string[] {
  const claimed = collect(checks);
  const problems = [...claimed.problems];
  for (const [kind] of STATEMENT_HALVES) {
    const problem = exactlyOne(`statement kind "${kind}"`, claimed.statements.get(kind) ?? []);
    if (problem !== null) problems.push(problem);
  }
  for (const [name] of FUNCTION_HALVES) {
    const owners = (claimed.functions.get(name) ?? []).map((c) => c.check);
    const problem = exactlyOne(`function ${name}()`, owners);
    if (problem !== null) problems.push(problem);
  }
  for (const [name, owners] of claimed.settings) {
    if (owners.length > 1) problems.push(`setting "${name}" is claimed by more than one check: ${owners.join(', ')}`);
  }
  const dotted = exactlyOne('the dotted settings pattern', claimed.dotted);
  if (dotted !== null) problems.push(dotted);
  const anyOther = exactlyOne('the catch-all for any other setting', claimed.anyOther);
  if (anyOther !== null) problems.push(anyOther);
  return problems;
}

/**
 * Validates the checks' claims (see {@link claimProblems}) and indexes them. Throws one error
 * listing every problem, so a catalogue with a doubtful claim never loads.
 */
export function claimIndex<Id extends string>(checks: readonly ClaimingCheck<Id>[]): ClaimIndex<Id> {
  const problems = claimProblems(checks);
  if (problems.length > 0) throw new Error(`the checks' audit claims are inconsistent:\n- ${problems.join('\n- ')}`);
  const claimed = collect(checks);
  const statements = new Map([...claimed.statements].map(([k, ids]) => [k, ids[0]!]));
  const functions = new Map([...claimed.functions].map(([k, owners]) => [k, owners[0]!]));
  const settings = new Map([...claimed.settings].map(([k, ids]) => [k, ids[0]!]));
  const dotted = claimed.dotted[0]!;
  const anyOther = claimed.anyOther[0]!;
  return {
    checkOfStatement: (kind) => statements.get(kind)!,
    checkOfSetting(name) {
      if (name === null) return anyOther;
      const lower = name.toLowerCase();
      return settings.get(lower) ?? (lower.includes('.') ? dotted : anyOther);
    },
    functionClaim: (name) => functions.get(name) ?? null,
    checkOfFunction: (name) => functions.get(name)!.check,
  };
}
