/**
 * What the audit knows per check: a title, the fix to suggest, and what transaction pooling
 * typically does when no pooltest report says otherwise. The "typical" column is PgBouncer in
 * transaction mode as its feature table documents it (see reference/pooler-docs.md): used only
 * when the user gave neither `--report` nor `--target`, and labelled as such in the output.
 */
import type { AuditCheckId } from './audit-types.js';

/** Static knowledge about one check id, as the audit uses it. */
export interface AuditCheckInfo {
  id: AuditCheckId;
  title: string;
  advice: string;
  /** PgBouncer transaction mode's usual outcome label. */
  typicalOutcome: string;
  /** Shown when one label does not tell the whole story. */
  typicalNote: string;
}

/**
 * In priority order: when a statement has several hazards and none comes from the statement's
 * own kind, the first in this list becomes the finding. Security-relevant state (role, RLS
 * variables, search_path) comes before correctness, and tracked parameters come last because
 * poolers usually replay them.
 */
export const AUDIT_CHECKS: readonly AuditCheckInfo[] = [
  {
    id: 'session/role-leak',
    title: 'SET ROLE / SET SESSION AUTHORIZATION outlives the transaction',
    advice: 'Use SET LOCAL ROLE inside the transaction, or connect as the role itself.',
    typicalOutcome: 'leaked',
    typicalNote: 'the next client on that backend runs as this role',
  },
  {
    id: 'session/custom-guc-leak',
    title: 'custom setting (app.x) set for the session',
    advice: "Use set_config(name, value, true) or SET LOCAL inside the transaction that needs it.",
    typicalOutcome: 'leaked',
    typicalNote: 'row-level security keyed on it sees another tenant',
  },
  {
    id: 'session/search-path-leak',
    title: 'search_path set for the session',
    advice: 'Use SET LOCAL search_path inside the transaction, schema-qualify names, or ALTER ROLE ... SET search_path.',
    typicalOutcome: 'leaked',
    typicalNote: 'another client resolves names in this schema',
  },
  {
    id: 'locks/advisory-session',
    title: 'session-level advisory lock',
    advice: 'Use pg_advisory_xact_lock (released at commit), or take the lock on a direct connection.',
    typicalOutcome: 'shared',
    typicalNote: 'another client on that backend also "holds" it; the unlock may land elsewhere',
  },
  {
    id: 'notify/listen',
    title: 'LISTEN',
    advice: 'LISTEN on a direct connection to PostgreSQL (NOTIFY through the pooler is fine).',
    typicalOutcome: 'misrouted',
    typicalNote: 'notifications go to whoever holds that backend, or to nobody (dropped)',
  },
  {
    id: 'temp/temp-table',
    title: 'temporary table kept after the transaction',
    advice: 'Create it with ON COMMIT DROP and use it inside one transaction.',
    typicalOutcome: 'lost',
    typicalNote: 'the next transaction may not find it, or another client may',
  },
  {
    id: 'cursors/with-hold',
    title: 'cursor WITH HOLD',
    advice: 'Fetch inside one transaction with a cursor WITHOUT HOLD (or page with keyset queries).',
    typicalOutcome: 'lost',
    typicalNote: 'FETCH in a later transaction finds no cursor',
  },
  {
    id: 'prepared/sql-prepare',
    title: 'SQL-level PREPARE / EXECUTE / DEALLOCATE',
    advice: "Use the driver's protocol-level prepared statements with the pooler's max_prepared_statements.",
    typicalOutcome: 'lost',
    typicalNote: 'EXECUTE fails with "prepared statement does not exist" (26000)',
  },
  {
    id: 'prepared/protocol-named',
    title: "a driver's named prepared statement (extended protocol) reused across transactions",
    advice: "Use unnamed statements (the driver's default), or a pooler that tracks them (PgBouncer 1.21+ with max_prepared_statements > 0).",
    typicalOutcome: 'failed',
    typicalNote: 'the next transaction lands on a backend without it: "prepared statement does not exist" (26000) or "already exists" (42P05)',
  },
  {
    id: 'sequences/lastval',
    title: 'currval() / lastval() after the transaction that called nextval()',
    advice: 'Use INSERT ... RETURNING, or call nextval and currval in the same transaction.',
    typicalOutcome: 'lost',
    typicalNote: 'another backend has no value, or another client\'s value',
  },
  {
    id: 'session/set-leak',
    title: 'SET / RESET of a setting for the session',
    advice: 'Use SET LOCAL inside the transaction, or ALTER ROLE ... SET for a per-role default.',
    typicalOutcome: 'leaked',
    typicalNote: 'the next client on that backend inherits it',
  },
  {
    id: 'session/tracked-parameter',
    title: 'SET of a parameter poolers usually track (application_name, TimeZone...)',
    advice: 'Usually replayed by the pooler; SET LOCAL or a startup parameter avoids relying on it.',
    typicalOutcome: 'tracked',
    typicalNote: 'PgBouncer replays client_encoding, DateStyle, TimeZone, IntervalStyle, standard_conforming_strings, application_name',
  },
];

const BY_ID = new Map<string, AuditCheckInfo>(AUDIT_CHECKS.map((c) => [c.id, c]));

/** Knowledge about one check id; every {@link AuditCheckId} has an entry. */
export function auditCheck(id: AuditCheckId): AuditCheckInfo {
  const info = BY_ID.get(id);
  if (info === undefined) throw new Error(`no audit knowledge for ${id}`);
  return info;
}

/** Lower is more important. */
export function checkPriority(id: AuditCheckId): number {
  return AUDIT_CHECKS.findIndex((c) => c.id === id);
}
