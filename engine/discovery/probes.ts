/**
 * Discovery's optional probes, and what a malformed reply to one of them means. Naming the
 * pooler (`SHOW pool_version`, PgBouncer's admin console), looking for a dead run's leftovers
 * and counting how many idle logins the pooler admits only add to what discovery reports: no
 * check's conclusion rests on their connections. A protocol violation there is therefore a
 * wire-conformance finding about the pooler (which connection, which message, its declared and
 * actual length, the bytes), and discovery goes on without the probe. A violation on the
 * clients the pool count and the checks rest on still stops discovery (discovery.ts).
 *
 * The case that made this rule: pgagroal 1.6.0 refuses the admin-console login (database
 * `pgbouncer`, which its Postgres does not have) with AuthenticationOk, FATAL 3D000, and one
 * stray 0x00 byte after it (its `pgagroal_write_empty`). Its pipelines serve the checks' own
 * connections with well-formed messages; stopping the run on that byte tested nothing.
 */
import { PooltestError } from '../record/errors.js';
import { PROTOCOL_VIOLATION } from '../judging/protocol.js';
import { Session } from '../session/session.js';
import type { Scenario } from '../steering/scenario.js';
import type { Target } from '../target/target.js';
import type { Discovery, StepRecord, WireFinding } from '../types.js';
import { violationIn, type ProtocolViolation } from '../wire/violation.js';

/** The tag of the identification probes' steps (and of a finding about them). */
export const IDENTIFY_TAG = 'discovery.identify';

/** Where a finding was made: the probe, the session, and what its connection was for. */
export interface ProbeSite {
  probe: string;
  session: string;
  connection: string;
}

/**
 * The findings of one discovery, and the recorded steps they account for: those steps no longer
 * stop discovery, every other violation still does.
 */
export class OptionalProbes {
  private readonly absorbed = new Set<StepRecord>();

  constructor(
    private readonly scn: Scenario,
    private readonly d: Discovery,
  ) {}

  /**
   * Records the violation that closed `site.session`'s connection as a finding. `violation` is
   * the wire guard's evidence when the caller has it; otherwise the session's recorded step
   * says what it can.
   */
  record(site: ProbeSite, consequence: string, violation: ProtocolViolation | null): void {
    // Only the probe's own steps: its session may have run others (D's count) that still stop discovery.
    const own = (tag: string): boolean =>
      tag === site.probe || tag.startsWith(`${site.probe}.`) || tag === `${site.session}.connect`;
    const steps = this.scn.steps.filter(
      (s) => s.session === site.session && own(s.tag) && s.error?.code === PROTOCOL_VIOLATION,
    );
    for (const s of steps) this.absorbed.add(s);
    (this.d.wireFindings ??= []).push(findingOf(site, consequence, violation, steps[0]));
  }

  /** The first violation among `steps` that no finding accounts for: discovery stops on it. */
  unaccounted(steps: readonly StepRecord[]): StepRecord | undefined {
    return steps.find((s) => s.error?.code === PROTOCOL_VIOLATION && !this.absorbed.has(s));
  }
}

function findingOf(
  site: ProbeSite,
  consequence: string,
  v: ProtocolViolation | null,
  step: StepRecord | undefined,
): WireFinding {
  return {
    ...site,
    direction: v?.direction ?? 'backend',
    type: v?.type ?? 'unknown',
    name: v?.name ?? 'unknown message',
    declaredLength: v?.declaredLength ?? null,
    actualLength: v?.actualLength ?? null,
    offset: v ? v.offset : null,
    hex: v?.hex ?? '',
    reason: v?.reason ?? step?.error?.message ?? 'the wire guard refused a message',
    consequence,
  };
}

/** One line for every report format: where, which message, lengths, why, the bytes, what discovery did. */
export function describeWireFinding(f: WireFinding): string {
  const what = f.type === 'startup' ? f.name : `${f.name} ('${f.type}')`;
  const lengths =
    f.declaredLength === null
      ? ''
      : `, declared length ${f.declaredLength}${f.actualLength === null ? '' : `, actual ${f.actualLength}`}`;
  const at = f.offset === null ? '' : ` at stream offset ${f.offset}`;
  return `${f.session} ${f.probe} (${f.connection}): ${what}${lengths}: ${f.reason}; bytes${at}: ${f.hex || '(none)'}; ${f.consequence}`;
}

const PGPOOL_SITE = (session: string): ProbeSite => ({
  probe: IDENTIFY_TAG,
  session,
  connection: "SHOW pool_version on discovery's first client, asking whether pgpool-II answers",
});

/**
 * Names the pooler when pgpool-II answers `SHOW pool_version`; null means "no pooler
 * identified", not "none". Runs on D: a malformed answer kills D, which is then a finding
 * (`dead` tells the caller to log D in again).
 */
export async function askPgpool(
  first: Session,
  probes: OptionalProbes,
): Promise<{ pooler: Discovery['pooler']; dead: boolean }> {
  const pgpool = await first.run(IDENTIFY_TAG, 'SHOW pool_version');
  if (pgpool.error?.code === PROTOCOL_VIOLATION) {
    probes.record(
      PGPOOL_SITE(first.label),
      'pgpool-II was not asked again; discovery logged D in again',
      first.violation,
    );
    return { pooler: null, dead: true };
  }
  const pgpoolVersion = pgpool.results[0]?.[0]?.pool_version;
  if (!pgpool.error && typeof pgpoolVersion === 'string')
    return { pooler: { name: 'pgpool-II', version: pgpoolVersion, how: 'SHOW pool_version' }, dead: false };
  return { pooler: null, dead: false };
}

const ADMIN_SITE: ProbeSite = {
  probe: IDENTIFY_TAG,
  session: 'admin',
  connection: "the login to PgBouncer's admin console (database pgbouncer), which only identifies the pooler",
};
const ADMIN_CONSEQUENCE = 'the pooler is not identified by its admin console; discovery went on without it';

/**
 * Asks PgBouncer's admin console `SHOW VERSION`. Anything that goes wrong (not an admin user,
 * not PgBouncer, a database of that name missing) leaves the identity unknown, which is fine;
 * a malformed message is also a finding about the pooler.
 */
export async function askPgBouncer(
  scn: Scenario,
  target: Target,
  probes: OptionalProbes,
): Promise<Discovery['pooler']> {
  const startMs = scn.recorder.now();
  let admin: Session;
  try {
    admin = await Session.open(ADMIN_SITE.session, { ...target, database: 'pgbouncer' }, scn.recorder, {
      connectMs: scn.ctx.bounds.connectMs,
      stepMs: scn.ctx.bounds.stepMs,
      tlsFirst: scn.ctx.state.tlsFirst,
    });
  } catch (err) {
    const violation = violationIn(err);
    if (violation) {
      // Recorded like any connect, so the evidence is in discovery's steps too.
      const message = err instanceof PooltestError ? err.message : String(err);
      scn.note(ADMIN_SITE.session, `${IDENTIFY_TAG}.connect`, '(connect to database pgbouncer)', {
        startMs,
        error: { code: PROTOCOL_VIOLATION, message },
      });
      probes.record(ADMIN_SITE, ADMIN_CONSEQUENCE, violation);
      return null;
    }
    return odysseyIn(err);
  }
  try {
    const v = await admin.run(IDENTIFY_TAG, 'SHOW VERSION');
    if (v.error?.code === PROTOCOL_VIOLATION) {
      probes.record(ADMIN_SITE, ADMIN_CONSEQUENCE, admin.violation);
      return null;
    }
    const text = v.results[0]?.[0]?.version;
    if (!v.error && typeof text === 'string' && /pgbouncer/i.test(text)) {
      return {
        name: 'PgBouncer',
        version: text.replace(/^pgbouncer\s*/i, ''),
        how: 'SHOW VERSION on the admin console',
      };
    }
    return null;
  } finally {
    await admin.close();
  }
}

/**
 * Odyssey words the errors it makes itself `odyssey: c<client id>: ...` (its od_frontend_error),
 * and refuses the admin console's login so when it cannot open a server connection for database
 * `pgbouncer` ("odyssey: c99560a001e91: failed to connect to remote server s36f0ba174d6a", seen
 * on 1.5.1). Its own console would tell the version, but only where its config defines one.
 */
function odysseyIn(err: unknown): Discovery['pooler'] {
  const message = err instanceof Error ? err.message : String(err);
  if (!/\bodyssey: c[0-9a-f]+: /.test(message)) return null;
  return {
    name: 'Odyssey',
    version: null,
    how: "the wording of its refusal of a login to database pgbouncer ('odyssey: c...:')",
  };
}
