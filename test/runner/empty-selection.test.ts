/**
 * A library caller of run() with a selection that leaves no check is refused as the CLI is,
 * NO_CHECKS_SELECTED, before anything connects: red before, when only the CLI refused and
 * run() went on to connect (and, with a target that answers, to report "0 checks", exit 0).
 * The target is port 1, where nothing listens: had run() tried it, the error would be
 * TARGET_REFUSED, which the control shows.
 */
import { describe, expect, test } from 'vitest';
import { PooltestError } from '../../engine/record/errors.js';
import { run } from '../../runner/run.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const NOWHERE = 'postgres://u@127.0.0.1:1/db';

/** The code run() rejects with; a run that resolves is a failure of this test. */
async function codeOfRun(only: string[], skip: string[]): Promise<string> {
  try {
    const report = await run({ target: NOWHERE, only, skip, timeoutMs: 5_000 });
    return `resolved with ${report.summary.total} checks, exit ${report.summary.exitCode}`;
  } catch (e) {
    return e instanceof PooltestError ? e.code : `not a PooltestError: ${String(e)}`;
  }
}

describe('run() with a selection that leaves no check', () => {
  test('only a check and skip its area: NO_CHECKS_SELECTED, naming both', async () => {
    const err = await run({ target: NOWHERE, only: ['session/set-leak'], skip: ['session'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PooltestError);
    expect((err as PooltestError).code).toBe('NO_CHECKS_SELECTED');
    expect((err as PooltestError).message).toMatch(/--only session\/set-leak selects 1 and --skip session/);
  });

  test('skip every area: the same refusal', async () => {
    const areas = [...new Set(CATALOGUE.map((c) => c.id.split('/')[0]!))];
    expect(await codeOfRun([], areas)).toBe('NO_CHECKS_SELECTED');
  });

  test('control: a selection with a check left goes on to the target, and is refused there', async () => {
    expect(await codeOfRun(['session/set-leak'], [])).toBe('TARGET_REFUSED');
  }, 60_000);
});
