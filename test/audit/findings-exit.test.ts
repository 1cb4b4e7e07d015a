/**
 * Regression (issue 40, re-tested): `pooltest audit --sql app.sql --target POOLER` while another
 * pooltest run worked the same pool got both checks inconclusive ("on this pooler: no result for
 * this check -> unknown") and ended "2 finding(s), 0 break on this pooler ...; exit 0: nothing
 * breaks on this pooler": a clean bill of health that nothing measured. The exit code stays 0 (as
 * the run command's does for inconclusive checks without --strict); its words say what is unknown.
 * The audit and the watch share this rule (findings-exit.ts), so one test holds both.
 */
import { expect, test } from 'vitest';
import type { Breaks } from '../../audit/audit-types.js';
import { findingsExitCode, findingsExitMeaning, findingsVerdict } from '../../audit/findings-exit.js';

const report = (basis: 'report' | 'target' | 'typical', breaks: Breaks[]) => ({
  pooler: { basis },
  findings: breaks.map((b) => ({ breaks: b })),
  overflow: {},
});

test.each(['target', 'report'] as const)(
  'with --%s, findings whose outcome is unknown there are not "nothing breaks"',
  (basis) => {
    const unknown = findingsVerdict(report(basis, ['unknown', 'unknown']), 0);
    expect(findingsExitCode(unknown, false)).toBe(0);
    const words = findingsExitMeaning(unknown, false);
    expect(words).not.toContain('nothing breaks');
    expect(words).toMatch(/^exit 0: nothing confirmed to break on this pooler, but 2 finding\(s\) unknown there/);
    // Controls: every finding known not to break says nothing breaks; one that breaks exits 1.
    expect(findingsExitMeaning(findingsVerdict(report(basis, [false, false]), 0), false)).toBe(
      'exit 0: nothing breaks on this pooler',
    );
    const breaking = findingsVerdict(report(basis, [true, 'unknown']), 1);
    expect(findingsExitCode(breaking, false)).toBe(1);
    expect(findingsExitMeaning(breaking, false)).toBe('exit 1: findings break on this pooler');
  },
);
