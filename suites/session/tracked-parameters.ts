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
];

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

/** `SET` of every observed parameter, in one simple query. */
export function setSql(params: readonly TrackedParameterSpec[], tag: string): string {
  return params.map((p) => `SET ${p.name} = '${p.marker(tag)}'`).join('; ');
}

/** The select list reading every observed parameter into `<prefix>_<column>`. */
export function readList(params: readonly TrackedParameterSpec[], prefix: 'seen' | 'mine'): string {
  return params.map((p) => `current_setting('${p.name}') AS ${prefix}_${p.column}`).join(', ');
}

/** PL/pgSQL that resets each parameter where the backend still shows A's value. */
export function cleanupSql(params: readonly TrackedParameterSpec[], tag: string): string {
  return params
    .map((p) => {
      const m = p.marker(tag);
      const still =
        p.match === 'exact'
          ? `current_setting('${p.name}') = '${m}'`
          : `position('${m}' in current_setting('${p.name}')) > 0`;
      return `IF ${still} THEN RESET ${p.name}; END IF;`;
    })
    .join(' ');
}
