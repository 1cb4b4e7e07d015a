/**
 * session/role-leak: does `SET ROLE` stay with the client that ran it? Applications switch
 * roles per request (a tenant role, a read-only role, row-level security by `current_user`);
 * a leaked role makes the next client run with the privileges and policies of someone else.
 *
 *   U:  SELECT <a role the login may SET ROLE to, least privileged first> AS role
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_user::text AS before_role;
 *       SET ROLE <r>; SET pooltest.role = '<marker>'                               -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                   -- lands on b1
 *       SELECT current_user::text AS seen_role
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_user::text AS mine_role
 *
 * U is a setup session, closed before A connects. The fixtures grant the NOLOGIN role
 * `pooltest_reader` to the login; elsewhere any role the login may assume will do, except
 * superuser-like ones: a pool serves one login, so whoever inherits the role could have
 * switched to it anyway. With none, the check is skipped. A role name is not unique to the run,
 * so a marker setting rides along: cleanup and the sweep reset only a role switch that carries
 * it (a pooler that resets custom settings but not the role would hide a leftover from them).
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes, type StateLabel } from '../../engine/judging/state-outcomes.js';
import { answered, errorText, stepOf, valueOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { ROLE_MARKER_SETTING, markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  role: 'setup.role',
} as const;

export const roleLeak = defineCheck({
  id: 'session/role-leak',
  title: 'SET ROLE stays with the client that ran it',
  severity: 'security',
  docs: [
    'https://www.pgbouncer.org/features.html (SET/RESET: never in transaction pooling)',
    'https://www.postgresql.org/docs/current/sql-set-role.html (SET LOCAL ROLE)',
  ],
  summary: '`SET ROLE` to a role the login may assume; does the next client run as it',
  outcomes: stateOutcomes({
    leaked:
      'Use SET LOCAL ROLE inside each transaction (or a login per role): a plain SET ROLE stays on the server connection and the next client runs as your role.',
    lost: 'Use SET LOCAL ROLE inside each transaction: the pooler resets the role between transactions, so later statements run as the login.',
    tracked: 'The pooler replays SET ROLE per client; no change needed for it.',
    pinned: 'The pooler pins clients after SET ROLE, losing multiplexing: prefer SET LOCAL ROLE.',
    rejected: 'The pooler refuses SET ROLE: use SET LOCAL ROLE inside a transaction, or a login per role.',
  }),
  requires: ['assumable-role'],
  uses: STATE_SCENARIO,
  audit: {
    statement: 'SET ROLE / SET SESSION AUTHORIZATION outlives the transaction',
    consequence: 'the next client on that backend runs as this role',
    priority: 10,
    claims: { settings: { names: ['role', 'session_authorization'] }, statements: { cleanup: ['SET ROLE NONE'] } },
  },
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    const setup = await scn.open('U');
    const lookup = await setup.run(TAGS.role, roleLookupSql(scn.discovery.serverVersionNum));
    await setup.close();
    const role = valueOf(lookup, 'role');
    if (typeof role !== 'string') return;
    const r = quoteIdent(role);
    const marked = `coalesce(current_setting('${ROLE_MARKER_SETTING}', true), '') = '${tag}'`;
    await runStateScenario(scn, {
      create: `SELECT current_user::text AS before_role; SET ROLE ${r}; SET ${ROLE_MARKER_SETTING} = '${tag}'`,
      observe: ['SELECT current_user::text AS seen_role'],
      readback: 'SELECT current_user::text AS mine_role',
      cleanup: `IF ${marked} THEN RESET ROLE; RESET ${ROLE_MARKER_SETTING}; END IF;`,
    });
  },
  judge: judgeRoleLeak,
});

/**
 * - The role lookup failed: inconclusive. It found no role: `skipped`.
 * - A's backend already ran as that role before A's SET: inconclusive (the observer could not
 *   tell A's switch from an older one).
 * - Otherwise the state judge, "seen" meaning `current_user` is the role.
 */
export function judgeRoleLeak(steps: readonly StepRecord[], discovery: Discovery): Judgement<StateLabel> {
  const lookup = stepOf(steps, TAGS.role);
  if (!answered(lookup) || lookup.error)
    return {
      outcome: null,
      facts: {},
      reason: `could not look for a role to assume: ${errorText(lookup) ?? 'no answer'}`,
    };
  const role = valueOf(lookup, 'role');
  if (typeof role !== 'string') {
    return {
      outcome: null,
      facts: { roleAvailable: false },
      reason: 'the login may not SET ROLE to any role (none granted to it, superuser-like ones excluded)',
      skipped: true,
    };
  }
  const before = valueOf(stepOf(steps, LANDING_TAGS.create), 'before_role');
  if (before === role)
    return { outcome: null, facts: { role }, reason: `A's backend already ran as ${role} before A's SET ROLE` };
  const is = (step: StepRecord, column: string): boolean | null => {
    const v = valueOf(step, column);
    return typeof v === 'string' ? v === role : null;
  };
  const j = judgeState(steps, discovery, {
    seenByOther: (take) => is(take, 'seen_role'),
    keptByA: (readback) => is(readback, 'mine_role'),
    show: (step) => `current_user = ${String(valueOf(step, 'seen_role') ?? valueOf(step, 'mine_role'))}`,
  });
  j.facts.role = role;
  return j;
}

/**
 * One role the login may switch to, least surprising first: the fixtures' `pooltest_reader`,
 * then roles that cannot log in, then predefined `pg_*` roles. Roles with superuser, role or
 * database creation, replication or RLS bypass are never chosen, nor the implicit
 * pg_database_owner. PostgreSQL 16 split the right to SET ROLE from membership.
 */
export function roleLookupSql(serverVersionNum: number): string {
  const right = serverVersionNum >= 160000 ? 'SET' : 'MEMBER';
  return `SELECT r.rolname::text AS role FROM pg_roles r
    WHERE r.rolname <> session_user AND r.rolname <> 'pg_database_owner'
      AND NOT (r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication OR r.rolbypassrls)
      AND pg_has_role(session_user, r.oid, '${right}')
    ORDER BY r.rolname = 'pooltest_reader' DESC, r.rolcanlogin, r.rolname LIKE 'pg\\_%', r.rolname
    LIMIT 1`;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
