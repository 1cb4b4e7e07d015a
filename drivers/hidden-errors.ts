/**
 * The server errors a driver received during a step and did not raise to the application,
 * read from the step's notices: the driver's own log (pgjdbc, postgres.js: agent-process.ts)
 * and the server's log (server-log.ts). Shared by the phases' judges (judge.ts, judge-batch.ts).
 */
import type { StepRecord } from '../engine/types.js';
import { DRIVER_LOG } from './agent-process.js';
import { SERVER_LOG } from './server-log.js';

/**
 * The server errors the driver received and hid, as `SQLSTATE message`: from its own log
 * (pgjdbc, postgres.js), else from the server's log (server-log.ts, where it was read). One
 * error is in both when both saw it: the driver's words are kept.
 */
export function hiddenErrors(step: StepRecord | undefined): string[] {
  const of = (severity: string): string[] =>
    (step?.notices ?? [])
      .filter((n) => n.severity === severity)
      .map((n) => (n.code ? `${n.code} ${n.message}` : n.message));
  const own = of(DRIVER_LOG);
  return own.length > 0 ? own : of(SERVER_LOG);
}
