/**
 * A stored report judged again from its record alone: each check's steps (with the engine's
 * run facts among them) and the discovery it ran with, through {@link judgeRun}, exactly as
 * the executor judged them. For a report of this version the result is what the report says
 * (test/judges/rejudge.test.ts holds every report stored in the repository to that).
 *
 * Schema 1's engine recorded no `run.markers` step, and its markers were drawn differently:
 * today's judges read a check's markers from that step, never from the SQL, so a schema-1
 * record would be judged without them (and read, for instance, "no reading" where its report
 * says `leaked`). Such a report is refused with REPORT_TOO_OLD rather than judged wrongly; it
 * can still be read, upgraded and compared (reporters/report-compat.ts, `pooltest diff`).
 */
import type { CheckMeta } from '../record/check-meta.js';
import { PooltestError } from '../record/errors.js';
import type { Judgement, Report } from '../types.js';
import { judgeRun } from './judge-record.js';

/** The first report schema whose records hold everything a judgement reads. */
export const FIRST_REJUDGEABLE_SCHEMA = 2;

type Judged = Pick<CheckMeta, 'id' | 'judge' | 'restsOn' | 'answersWithRefusals'>;

/** Each check of `report` that carries its steps, judged again from them (with `catalogue`'s judges). */
export function rejudgeReport(
  report: Pick<Report, 'schemaVersion' | 'discovery' | 'checks'>,
  catalogue: readonly Judged[],
): Array<{ id: string; judgement: Judgement }> {
  if (typeof report.schemaVersion !== 'number' || report.schemaVersion < FIRST_REJUDGEABLE_SCHEMA)
    throw new PooltestError(
      'REPORT_TOO_OLD',
      `a report of schema ${String(report.schemaVersion)} cannot be judged again from its record: its checks recorded no run.markers step, which judges read their markers from (schema ${FIRST_REJUDGEABLE_SCHEMA} or later can; an older report can still be read and compared)`,
      { schemaVersion: typeof report.schemaVersion === 'number' ? report.schemaVersion : null },
    );
  // The discovery's own steps are the discovery's record, not any check's.
  const discovery = { ...report.discovery, steps: [] };
  return report.checks
    .filter((c) => Array.isArray(c.steps))
    .map((c) => {
      const def = catalogue.find((d) => d.id === c.id);
      if (!def)
        throw new PooltestError('REPORT_INVALID', `the report holds check ${c.id}, which this version does not have`);
      return { id: c.id, judgement: judgeRun(def, structuredClone(c.steps), discovery) };
    });
}
