/**
 * The parameters `session/tracked-parameter` observes, one by one: the ones the server reports
 * to the client (GUC_REPORT), which poolers track or may track. Each has a value A sets that
 * nobody runs in by chance, the columns the observer and A read it into, and the cleanup that
 * puts a backend back when it still shows that value.
 *
 * Poolers treat them differently (PgBouncer 1.18 replays five of them for a client that has a
 * value, IntervalStyle only from 1.20, search_path only when listed in track_extra_parameters
 * and reported by the server), so each gets its own outcome; the check's outcome is derived
 * from them (see the check file and INTERPRETING.md).
 */
import { ROLE_MARKER_SETTING } from '../../engine/record/markers.js';
import type { Discovery } from '../../engine/types.js';

export interface TrackedParameterSpec {
  /** The name as SET and current_setting() spell it. */
  name: string;
  /** Lower-case, as the record's markers, the audit's claims and the profiles name it. */
  key: string;
  /** Column suffix: the observer reads `seen_<column>`, A reads `mine_<column>`. */
  column: string;
  /** The value A sets (`tag` is the run's unique marker); it goes into the record as the marker. */
  marker(tag: string): string;
  /**
   * `exact`: the reading equals the marker; `contains`: search_path comes back normalised (quoted,
   * with other schemas), so A's value shows as the marker inside it.
   */
  match: 'exact' | 'contains';
  /** Only servers from this version on report the parameter (none: all do). */
  reportedFrom?: number;
  /**
   * Read in A's first step, before its SETs: the parameter applies to this login only where the
   * reading `holds` (a superuser for session_authorization, a default other than A's value for
   * default_transaction_read_only); otherwise its outcome is null with `otherwise` as the reason.
   */
  precondition?: { column: string; sql: string; holds: (reading: string) => boolean; otherwise: string };
  /** The statement A sets it with, where a plain `SET name = 'value'` would not do. */
  setStatement?: (value: string) => string;
  /** What to do about a leak of this parameter in particular: said beside its outcome. */
  leakAdvice?: string;
}

/** In the order the report lists them. */
export const TRACKED_PARAMETERS: readonly TrackedParameterSpec[] = [
  { name: 'application_name', key: 'application_name', column: 'app', marker: (tag) => tag, match: 'exact' },
  // UTC+12:45: seeing it means seeing A's SET.
  fixed('TimeZone', 'tz', 'Pacific/Chatham'),
  // The server default is ISO with MDY or DMY from initdb's locale, never SQL.
  fixed('DateStyle', 'datestyle', 'SQL, DMY'),
  fixed('IntervalStyle', 'intervalstyle', 'iso_8601'),
  // Every value the observer reads is ASCII, so a client decoding UTF-8 still reads LATIN1 right.
  fixed('client_encoding', 'encoding', 'LATIN1'),
  fixed('standard_conforming_strings', 'scs', 'off'),
  {
    name: 'search_path',
    key: 'search_path',
    column: 'search_path',
    // A schema name unique to the run; it need not exist (search_path accepts missing schemas).
    marker: (tag) => tag.replace(/[^a-z0-9]/gi, '_').toLowerCase(),
    match: 'contains',
    // PostgreSQL 18 reports search_path (GUC_REPORT); before it, no pooler learns a client's value.
    reportedFrom: 180000,
  },
  {
    ...fixed('default_transaction_read_only', 'read_only', 'on'),
    // A login whose default is already on shows nothing A's SET changed.
    precondition: {
      column: 'before_read_only',
      sql: "current_setting('default_transaction_read_only') AS before_read_only",
      holds: (v) => v === 'off',
      otherwise: "the login's default_transaction_read_only is already on: A's SET would change nothing to observe",
    },
    leakAdvice:
      "default_transaction_read_only leaks on PgBouncer up to 1.25 in transaction mode (not tracked by default: measured on 1.18 and 1.25.2), and on pgagroal 1.6.0 and Odyssey with pool_discard no: the next client on that server connection has every write refused (SQLSTATE 25006). Use BEGIN READ ONLY or SET LOCAL default_transaction_read_only inside the transaction; on PgBouncer 1.20 and later, track it per client (track_extra_parameters = 'IntervalStyle, default_transaction_read_only').",
  },
  {
    name: 'session_authorization',
    key: 'session_authorization',
    column: 'session_auth',
    // A predefined role: it exists on every server from 10 on, cannot log in, and may read every
    // setting (pg_read_all_settings is among its roles), so A's readback and cleanup work under it.
    marker: () => 'pg_monitor',
    match: 'exact',
    precondition: {
      column: 'superuser',
      sql: "current_setting('is_superuser') AS superuser",
      holds: (v) => v === 'on',
      otherwise: 'only a superuser login may SET session_authorization, and this login is not one',
    },
    // Guarded in the same message, so that a login that may not is not refused the other SETs.
    setStatement: (value) =>
      `DO $pooltest$ BEGIN IF current_setting('is_superuser') = 'on' THEN SET SESSION AUTHORIZATION ${value}; END IF; END $pooltest$`,
    leakAdvice:
      'The next client on that backend runs as this role: use SET LOCAL SESSION AUTHORIZATION inside the transaction, or a login per role.',
  },
  {
    ...fixed('scram_iterations', 'scram', '4097'),
    // PostgreSQL 16 added it and reports it (GUC_REPORT), so libpq hashes new passwords with it.
    reportedFrom: 160000,
    leakAdvice:
      "Another client's password changes are hashed with this iteration count: SET LOCAL scram_iterations in the transaction that changes the password.",
  },
];

/**
 * The settings A's SET carries beside its values that no other run could have set by chance
 * (read-only, another identity): the run's marker (ROLE_MARKER_SETTING, markers.ts) rides along,
 * so that the tidy-up and the sweep reset them only where this run left them (visit-sql.ts).
 */
export const MARKED_PARAMETERS = ['default_transaction_read_only', 'session_authorization'] as const;

function fixed(name: string, column: string, value: string): TrackedParameterSpec {
  return { name, key: name.toLowerCase(), column, marker: () => value, match: 'exact' };
}

/** Whether `reading` shows A's value `marker`. */
export function shows(p: TrackedParameterSpec, reading: string, marker: string): boolean {
  return p.match === 'exact' ? reading === marker : reading.includes(marker);
}

/** The parameters this server reports, so that a pooler could track them. */
export function observedParameters(discovery: Pick<Discovery, 'serverVersionNum'>): TrackedParameterSpec[] {
  return TRACKED_PARAMETERS.filter((p) => p.reportedFrom === undefined || discovery.serverVersionNum >= p.reportedFrom);
}

/** The markers to record: one per observed parameter, under its key. */
export function markersOf(params: readonly TrackedParameterSpec[], tag: string): Record<string, string> {
  return Object.fromEntries(params.map((p) => [p.key, p.marker(tag)]));
}

/**
 * A's first statements: the preconditions' readings, the run's marker setting where a marked
 * parameter is among them, then `SET` of every observed parameter, in one simple query. The
 * identity switch comes last, so that every statement before it runs as the login.
 */
export function setSql(params: readonly TrackedParameterSpec[], tag: string): string {
  const readings = params.flatMap((p) => (p.precondition ? [p.precondition.sql] : []));
  const marked = params.some((p) => (MARKED_PARAMETERS as readonly string[]).includes(p.name));
  const sets = params.map((p) =>
    p.setStatement ? p.setStatement(p.marker(tag)) : `SET ${p.name} = '${p.marker(tag)}'`,
  );
  return [
    ...(readings.length > 0 ? [`SELECT ${readings.join(', ')}`] : []),
    ...(marked ? [`SET ${ROLE_MARKER_SETTING} = '${tag}'`] : []),
    ...sets.filter((_, i) => !params[i]!.setStatement),
    ...sets.filter((_, i) => params[i]!.setStatement),
  ].join('; ');
}

/** The select list reading every observed parameter into `<prefix>_<column>`. */
export function readList(params: readonly TrackedParameterSpec[], prefix: 'seen' | 'mine'): string {
  return params.map((p) => `current_setting('${p.name}') AS ${prefix}_${p.column}`).join(', ');
}

/**
 * PL/pgSQL that resets each parameter where the backend still shows A's value: one loop over a
 * list of (name, value), in the order RESET must run: the identity first (so that what follows
 * runs as the login again), the marker setting last. A list costs a third of the bytes of an IF
 * per parameter, and A's cleanup carries the tidy-up's visit in one message only while the two
 * fit QUEUED_MESSAGE_MAX_BYTES (steering/inline-tidy.ts). No backslash escapes: A's session
 * runs this with standard_conforming_strings off.
 */
export function cleanupSql(params: readonly TrackedParameterSpec[], tag: string): string {
  const marked = params.some((p) => (MARKED_PARAMETERS as readonly string[]).includes(p.name));
  const ordered = [...params.filter((p) => p.setStatement), ...params.filter((p) => !p.setStatement)];
  const rows = ordered.map((p) => [p.name, p.marker(tag)]);
  if (marked) rows.push([ROLE_MARKER_SETTING, tag]);
  const contains = ordered.filter((p) => p.match === 'contains').map((p) => `'${p.name}'`);
  const values = rows.map(([n, m]) => `('${n}','${m}')`).join(',');
  const inside =
    contains.length > 0 ? ` OR (n IN (${contains.join(',')}) AND strpos(current_setting(n,true),m)>0)` : '';
  return `DECLARE r record; BEGIN FOR r IN SELECT n FROM (VALUES ${values}) v(n,m) WHERE current_setting(n,true)=m${inside} LOOP EXECUTE 'RESET '||r.n; END LOOP; END;`;
}
