/**
 * The application_name a run's sessions send at login, through the target. Normally the run's
 * name (`pooltest-<run>`, see applicationNameFor): other runs and the sweep tell this run's
 * sessions by it, and PgBouncer applies it to whatever server connection serves the client.
 *
 * pgagroal 1.6.0 opens a server connection with the startup packet of the client that needed
 * it, and keeps that connection for later clients: a name sent at login becomes the server
 * connection's own default, which RESET and DISCARD ALL restore, so the run's name stayed on
 * its server connections for good and every sweep was dirty (issue 40: three runs of three on
 * its session pipeline), and the next run read those backends as another run at work. Once
 * discovery has named pgagroal, the run's sessions send no name at login; a holder's
 * transaction carries the name with SET LOCAL instead (holders.ts), which ends with it, so a
 * transaction the pooler keeps after its client left is still known as this run's
 * (sweep-idle.ts) and other runs see the holders at work.
 */
import { applicationNameFor } from '../session/session.js';
import type { Discovery } from '../types.js';
import type { RunContext } from '../context/run-state.js';

/** The pooler makes a client's startup parameters its server connection's defaults. */
export function startupNameSticks(discovery: Pick<Discovery, 'pooler'>): boolean {
  return discovery.pooler?.name === 'pgagroal';
}

/** The name the run's sessions through the target send at login ('' sends none). */
export function loginName(ctx: Pick<RunContext, 'discovery' | 'runId'>): string {
  return startupNameSticks(ctx.discovery) ? '' : applicationNameFor(ctx.runId);
}

/** The statement that names a holder's transaction where no name was sent at login, else none. */
export function transactionName(scn: {
  readonly ctx: Pick<RunContext, 'discovery' | 'runId'>;
  readonly namesTransactions: boolean;
}): string[] {
  return startupNameSticks(scn.ctx.discovery) && scn.namesTransactions
    ? [`SET LOCAL application_name = '${applicationNameFor(scn.ctx.runId)}'`]
    : [];
}
