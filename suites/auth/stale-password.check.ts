/**
 * auth/stale-password (fixtures only): after the login's password changes on the server, does
 * the pooler still admit the old one, refuse the new one, and does a reload change that?
 *
 *   D   (directly, kept open): ALTER ROLE CURRENT_USER PASSWORD <new>       -- not recorded
 *   OLD, NEW through the target: connect with that password; SELECT pg_backend_pid() AS pid
 *   R   (admin console, database pgbouncer): RELOAD
 *   OLD, NEW again
 *   D:  ALTER ROLE CURRENT_USER PASSWORD <the original>                     -- always, not recorded
 *
 * A pooler that authenticates clients against its own copy of the credentials (PgBouncer's
 * auth_file, pgpool-II's pool_passwd) keeps admitting the old password after the change - and
 * serves it on server connections it already holds - while it refuses the new one, until the
 * file is rewritten and reloaded. The four cases (old admitted or not, new admitted or not),
 * before and after the reload, are the facts; the outcome is the one a security review needs.
 *
 * Fixtures only: it changes the login's password, which would lock out every other user of a
 * shared login for a moment. The passwords never enter the record: the ALTER ROLE statements run
 * on a scratch recorder and are noted with the password left out.
 */
import { randomBytes } from 'node:crypto';
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { isPooltestError } from '../../engine/record/errors.js';
import { stepOf } from '../../engine/record/step-reading.js';
import { Recorder } from '../../engine/session/recorder.js';
import { applicationNameFor, Session } from '../../engine/session/session.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Target } from '../../engine/target/target.js';
import type { ErrorRecord, Facts, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  alter: 'D.alter',
  beforeOld: 'before.old',
  beforeNew: 'before.new',
  afterOld: 'after.old',
  afterNew: 'after.new',
  cleanup: 'D.cleanup',
} as const;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  'old-accepted': {
    means:
      'after ALTER ROLE ... PASSWORD the pooler still admitted the old password (the facts say whether a reload changed that)',
    advice:
      "The pooler keeps its own copy of the password: after rotating a password (or revoking a leaked one), rewrite the pooler's auth file and reload it, or let it look passwords up on the server (PgBouncer auth_query); until then the old password still logs in.",
  },
  refreshed: {
    means:
      'the pooler admitted the new password and refused the old one, at once or after a reload (the facts say which)',
  },
  rejected: {
    means: 'the pooler admitted neither the old nor the new password',
    advice:
      "The pooler refuses the new password until its auth file is rewritten and reloaded: rotate the pooler's copy together with the server's, or use auth_query.",
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const stalePassword = defineCheck({
  id: 'auth/stale-password',
  title: 'a changed password takes effect at once: the old one is refused, the new one admitted',
  severity: 'security',
  docs: [
    'https://www.pgbouncer.org/config.html#auth_file (read at startup and on RELOAD)',
    'https://www.pgbouncer.org/config.html#auth_query (looks the password up on the server)',
    'https://www.pgpool.net/docs/latest/en/html/auth-pool-passwd.html (pool_passwd)',
  ],
  summary:
    'fixture only: after `ALTER ROLE ... PASSWORD`, does the old password still log in, the new one, and after a `RELOAD`',
  outcomes: OUTCOMES,
  requires: ['fixture'],
  skipIf: (ctx) =>
    ctx.fixture
      ? null
      : "fixtures only: it changes the login's password, locking out other users of the login while it runs",
  async scenario(scn) {
    const original = scn.ctx.target.password ?? '';
    const fresh = `pooltest-${randomBytes(12).toString('hex')}`;
    const secrets = [original, fresh].filter((p) => p !== '');
    const scratch = new Recorder();
    // D takes no abort signal: an interrupted run must still get its password back (bounded by stepMs).
    const d = await Session.open('D', scn.ctx.direct ?? scn.ctx.target, scratch, bounds(scn, false));
    try {
      const altered = await d.run(TAGS.alter, `ALTER ROLE CURRENT_USER PASSWORD '${fresh}'`);
      scn.note('D', TAGS.alter, 'ALTER ROLE CURRENT_USER PASSWORD <new password, not shown>', {
        startMs: altered.startMs,
        ...(altered.error ? { error: hide(altered.error, secrets) } : {}),
      });
      if (altered.error) return;
      await login(scn, 'OLD', TAGS.beforeOld, original, secrets);
      await login(scn, 'NEW', TAGS.beforeNew, fresh, secrets);
      await reload(scn, [original, fresh], secrets);
      await login(scn, 'OLD', TAGS.afterOld, original, secrets);
      await login(scn, 'NEW', TAGS.afterNew, fresh, secrets);
    } finally {
      // Always put the original back, on the session that was opened with it; should that session
      // have died, on a new one that logs in with the new password.
      let restored = await d.run(TAGS.cleanup, `ALTER ROLE CURRENT_USER PASSWORD '${original}'`);
      if (restored.error || restored.timedOut)
        restored = await restoreAnew(scn, scratch, fresh, original).catch(() => restored);
      scn.note('D', TAGS.cleanup, 'ALTER ROLE CURRENT_USER PASSWORD <original password, not shown>', {
        startMs: restored.startMs,
        ...(restored.error || restored.timedOut
          ? { error: hide(restored.error ?? { message: 'no answer' }, secrets), timedOut: restored.timedOut }
          : {}),
      });
      scn.recorder.statements += scratch.statements;
      await d.close();
    }
  },
  judge: judgeStalePassword,
});

/** The restore on a fresh direct session, logged in with the password the server now has. */
async function restoreAnew(scn: Scenario, scratch: Recorder, fresh: string, original: string): Promise<StepRecord> {
  const again = await Session.open(
    'D',
    { ...(scn.ctx.direct ?? scn.ctx.target), password: fresh },
    scratch,
    bounds(scn, false),
  );
  try {
    return await again.run(TAGS.cleanup, `ALTER ROLE CURRENT_USER PASSWORD '${original}'`);
  } finally {
    await again.close();
  }
}

function bounds(scn: Scenario, interruptible = true): Parameters<typeof Session.open>[3] {
  return {
    connectMs: scn.ctx.bounds.connectMs,
    stepMs: scn.ctx.bounds.stepMs,
    applicationName: applicationNameFor(scn.ctx.runId),
    tlsFirst: scn.ctx.state.tlsFirst,
    ...(interruptible && scn.signal ? { signal: scn.signal } : {}),
  };
}

/** One login through the target with `password`: served (a pid), refused (an error), or no answer. */
async function login(
  scn: Scenario,
  label: string,
  tag: string,
  password: string,
  secrets: string[],
  database?: string,
  sql = 'SELECT pg_backend_pid() AS pid',
): Promise<boolean> {
  const target: Target = { ...scn.ctx.target, password, ...(database ? { database } : {}) };
  const startMs = scn.recorder.now();
  let s: Session | null = null;
  try {
    s = await Session.open(label, target, scn.recorder, bounds(scn));
    const step = await s.run(tag, sql);
    return step.error === null && !step.timedOut;
  } catch (err) {
    scn.note(label, tag, `(login with the ${label === 'NEW' ? 'new' : 'old'} password)`, {
      startMs,
      error: hide(connectError(err), secrets),
      timedOut: isPooltestError(err) && err.code === 'STEP_TIMEOUT',
    });
    return false;
  } finally {
    await s?.close();
  }
}

/** RELOAD on PgBouncer's admin console, with whichever password it admits; recorded either way. */
async function reload(scn: Scenario, passwords: string[], secrets: string[]): Promise<void> {
  for (const password of passwords) {
    if (await login(scn, 'R', 'reload', password, secrets, 'pgbouncer', 'RELOAD')) return;
  }
}

function connectError(err: unknown): ErrorRecord {
  if (!isPooltestError(err)) return { message: err instanceof Error ? err.message : String(err) };
  const sqlstate = err.detail.sqlstate;
  return {
    message: `${err.code}: ${err.message}`,
    ...(typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate) ? { code: sqlstate } : {}),
  };
}

/** A second line of defence: no password survives into a recorded message. */
function hide(e: ErrorRecord, secrets: readonly string[]): ErrorRecord {
  let message = e.message;
  for (const s of secrets) message = message.split(s).join('***');
  return { ...e, message };
}

/** Served: a pid came back. Refused: an error with an SQLSTATE or an AUTH_FAILED. Otherwise unknown. */
function admitted(steps: readonly StepRecord[], tag: string): boolean | null {
  const all = steps.filter((s) => s.tag === tag);
  const served = all.find((s) => s.pid !== null && !s.error && !s.timedOut);
  if (served) return true;
  const last = all.at(-1);
  if (!last || last.timedOut || !last.error) return null;
  return last.error.code !== undefined || /^AUTH_FAILED\b/.test(last.error.message) ? false : null;
}

/**
 * - The password could not be changed: skipped when the server refused it (the login may not
 *   change its own password), inconclusive otherwise.
 * - A login that neither got served nor was refused (no answer, a lost connection): inconclusive.
 * - The old password served a query, before or after the reload: `old-accepted`.
 * - Otherwise the new one was served (at once, or only after the reload): `refreshed`.
 * - Neither: `rejected`.
 * The restore is the cleanup step (`D.cleanup`): its failure is reported as a failed cleanup.
 */
export function judgeStalePassword(steps: readonly StepRecord[]): Judgement<Label> {
  const alter = stepOf(steps, TAGS.alter);
  if (!alter) return { outcome: null, facts: {}, reason: 'the password was never changed (no D.alter step)' };
  if (alter.error) {
    const text = `${alter.error.code ?? ''} ${alter.error.message}`.trim();
    return alter.error.code
      ? { outcome: null, facts: {}, reason: `the login may not change its own password: ${text}`, skipped: true }
      : { outcome: null, facts: {}, reason: `changing the password failed: ${text}` };
  }
  const reloadStep = steps.filter((s) => s.tag === 'reload').at(-1);
  const facts: Facts = {
    oldAcceptedBefore: admitted(steps, TAGS.beforeOld),
    newAcceptedBefore: admitted(steps, TAGS.beforeNew),
    reloaded: reloadStep !== undefined && !reloadStep.error && !reloadStep.timedOut,
    reloadError: reloadStep?.error ? `${reloadStep.error.code ?? ''} ${reloadStep.error.message}`.trim() : null,
    oldAcceptedAfterReload: admitted(steps, TAGS.afterOld),
    newAcceptedAfterReload: admitted(steps, TAGS.afterNew),
  };
  const unknown = ['oldAcceptedBefore', 'newAcceptedBefore', 'oldAcceptedAfterReload', 'newAcceptedAfterReload'].filter(
    (k) => facts[k] === null,
  );
  if (unknown.length > 0) return { outcome: null, facts, reason: `no clear answer for ${unknown.join(', ')}` };
  const said = (old: unknown, neu: unknown): string =>
    `old password ${old ? 'admitted' : 'refused'}, new ${neu ? 'admitted' : 'refused'}`;
  facts.caseBefore = said(facts.oldAcceptedBefore, facts.newAcceptedBefore);
  facts.caseAfterReload = said(facts.oldAcceptedAfterReload, facts.newAcceptedAfterReload);
  const story = `after ALTER ROLE ... PASSWORD: ${facts.caseBefore}; after ${facts.reloaded ? 'RELOAD' : 'an attempted reload (not possible here)'}: ${facts.caseAfterReload}`;
  if (facts.oldAcceptedBefore || facts.oldAcceptedAfterReload) return { outcome: 'old-accepted', facts, reason: story };
  if (facts.newAcceptedBefore || facts.newAcceptedAfterReload) return { outcome: 'refreshed', facts, reason: story };
  return { outcome: 'rejected', facts, reason: story };
}
