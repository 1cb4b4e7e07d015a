/**
 * A real report with hostile text where servers and poolers put theirs: SQL, an error, a
 * notice, a NOTIFY payload, the evidence and a fact. Shared by the HTML tests (text and browser).
 */
import type { Report } from '../../engine/types.js';
import { HOSTILE, pgbouncerReport } from './samples.js';

export const SCRIPT_SQL = '</text></svg><script>window.pwned = 1</script>';
export const IMG_ERROR = '<img src=x onerror="window.pwned = 2">';

/** The PgBouncer sample with `<script>` and `<img onerror>` in steps, evidence and facts. */
export function hostileReport(base: Report = pgbouncerReport()): Report {
  const r = structuredClone(base);
  const c = r.checks.find((x) => x.id === 'session/set-leak') ?? r.checks[0]!;
  const step = c.steps[0]!;
  step.sql = `${SCRIPT_SQL} ${HOSTILE}`;
  step.error = { code: '42601"><script>window.pwned=3</script>', message: IMG_ERROR };
  step.notices = [{ severity: 'WARNING', message: `<iframe src="javascript:window.pwned=4"></iframe>` }];
  c.evidence = `${IMG_ERROR} ${HOSTILE}`;
  c.facts = { ...c.facts, '<b onmouseover=alert(1)>': SCRIPT_SQL };
  r.discovery.notes = [...r.discovery.notes, SCRIPT_SQL];
  return r;
}
