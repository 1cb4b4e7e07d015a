/**
 * The catalogue as plain data (id, title, severity, documentation) for `--list` and for library
 * users, without the scenarios and judges that run it.
 */
import { CATALOGUE } from '../suites/catalogue.js';
import type { Severity } from '../engine/types.js';

/** One check of the catalogue, as `pooltest --list` shows it. */
export interface CheckInfo {
  /** Stable `area/behaviour` id. */
  id: string;
  title: string;
  severity: Severity;
  /** Documentation the behaviour is described in. */
  docs: string[];
}

/** Every check this version runs, in report order. */
export function listChecks(): CheckInfo[] {
  return CATALOGUE.map((c) => ({ id: c.id, title: c.title, severity: c.severity, docs: [...c.docs] }));
}
