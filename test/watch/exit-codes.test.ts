/**
 * The watch and the audit give the same exit code for the same findings (issue 40: with
 * findings that typically break and no pooler given, the audit exited 3 and the watch 0,
 * though its terminal said BREAKS seven times). The watch adds only what the audit has not: the
 * command's own failure first, and 2 for connections it never saw, after a 1 and before a 3.
 */
import { describe, expect, test } from 'vitest';
import type { AuditReport, BehaviourBasis, Breaks } from '../../audit/audit-types.js';
import { exitCode as auditExitCode } from '../../audit/exit-code.js';
import { parseWatchArgs } from '../../watch/watch-args.js';
import { watchExitCode } from '../../watch/watch-command.js';
import type { WatchReport } from '../../watch/watch-types.js';

/** Just the fields the exit rule reads, as each command's report has them. */
function reports(
  basis: BehaviourBasis,
  breaks: Breaks[],
  overflow: Record<string, number> = {},
  unanswered = 0,
): { audit: AuditReport; watch: WatchReport } {
  const breaking = breaks.filter((b) => b === true).length;
  const findings = breaks.map((b) => ({ breaks: b }));
  return {
    audit: {
      pooler: { basis },
      findings,
      overflow,
      summary: { breakingCount: breaking },
    } as unknown as AuditReport,
    watch: {
      pooler: { basis },
      findings,
      overflow,
      summary: { breaking, unanswered },
    } as unknown as WatchReport,
  };
}

describe('one rule for the findings of watch and audit', () => {
  test.each<[string, BehaviourBasis, Breaks[], Record<string, number>, boolean, number]>([
    ['no finding', 'typical', [], {}, false, 0],
    ['typically breaks, no pooler', 'typical', [true, true, false], {}, false, 3],
    ['typically breaks, --fail-on-findings', 'typical', [true], {}, true, 1],
    ['unknown outcome, no pooler', 'typical', ['unknown'], {}, false, 3],
    ['nothing typically breaks', 'typical', [false], {}, true, 0],
    ['only counted beyond the kept ones', 'typical', [false], { 'locks/advisory-session': 4 }, false, 3],
    ['breaks on the pooler given', 'report', [true, false], {}, false, 1],
    ['fine on the pooler given, whatever the flag', 'target', [false, 'unknown'], {}, true, 0],
  ])('%s', (_what, basis, breaks, overflow, failOnFindings, expected) => {
    const r = reports(basis, breaks, overflow);
    expect(auditExitCode(r.audit, failOnFindings)).toBe(expected);
    expect(watchExitCode(r.watch, null, failOnFindings)).toBe(expected);
  });

  test("the watch's own codes: the command's failure first, then 1, then unseen connections (2), then 3", () => {
    const failed = { exitCode: 5, signal: null };
    const passed = { exitCode: 0, signal: null };
    expect(watchExitCode(reports('report', [true], {}, 1).watch, failed)).toBe(5);
    expect(watchExitCode(reports('report', [true], {}, 1).watch, passed)).toBe(1);
    expect(watchExitCode(reports('typical', [true], {}, 1).watch, passed, true)).toBe(1);
    expect(watchExitCode(reports('typical', [true], {}, 1).watch, passed)).toBe(2);
    expect(watchExitCode(reports('typical', [], {}, 1).watch, passed)).toBe(2);
    expect(watchExitCode(reports('typical', [true]).watch, passed)).toBe(3);
  });

  test('--fail-on-findings is read by the watch as by the audit, and takes no value', () => {
    expect(parseWatchArgs(['--upstream', 'db', '--fail-on-findings']).failOnFindings).toBe(true);
    expect(parseWatchArgs(['--upstream', 'db']).failOnFindings).toBe(false);
    expect(() => parseWatchArgs(['--upstream', 'db', '--fail-on-findings=yes'])).toThrow(
      /--fail-on-findings takes no value/,
    );
  });
});
