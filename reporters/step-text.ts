/**
 * One recorded step as one line of text: order, session, backend pid, purpose, SQL and what
 * came back. Shared by the terminal's verbose view and the JUnit evidence, so both show the
 * same record in the same words.
 */
import type { StepRecord } from '../engine/types.js';

/** `  3 O1  pid   1935  observe.take: BEGIN; SELECT ...  -> [{"pid":1935}]` */
export function stepLine(s: StepRecord): string {
  return `${String(s.seq).padStart(3)} ${s.session.padEnd(3)} pid ${String(s.pid ?? '-').padStart(6)}  ${s.tag}: ${s.sql.replace(/\s+/g, ' ')}  -> ${stepOutcome(s)}`;
}

/** What a step got back: the error verbatim, a wait, or the first row of each statement that returned rows. */
export function stepOutcome(s: StepRecord): string {
  if (s.error) return `ERROR ${s.error.code ?? ''} ${s.error.message}`.replace(/ {2,}/g, ' ');
  if (s.timedOut) return 'no answer (waited)';
  const firstRows = s.results.filter((rows) => rows.length > 0).map((rows) => rows[0]);
  const notices = s.notices.map((n) => ` ${n.severity}: ${n.message}`).join('');
  const notifications = s.notifications.map((n) => ` NOTIFY ${n.channel} from pid ${n.senderPid}`).join('');
  return `${JSON.stringify(firstRows)}${notices}${notifications}`;
}
