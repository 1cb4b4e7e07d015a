/**
 * Ctrl-C during discovery: the run resets its application_name on the pooler's server
 * connections with as many nameless visitors as the pool bound (8), not knowing the pool yet.
 * On a pool of 2 the other 6 wait for a backend until their bound; that is the pool being
 * narrower than the bound, and the sentence was meant to leave them out. Its filter still
 * matched the old wording of a visit without a backend ("backend ?"), so the INTERRUPTED line
 * listed six "client sweep.names1.N (no backend reached): could not look at application_name:
 * no answer within 1000 ms" (found by a fresh-eyes Ctrl-C 1.5 s into a run on PgBouncer).
 * Control: a visitor refused for a reason of its own (a wrong password) is still said.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { restoreNamesAfterDiscovery } from '../../engine/sweep/names.js';
import { resolveTarget } from '../../engine/target/target.js';

describe("the reset of the run's application_name after an interrupted discovery", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const bounds = { connectMs: 5_000, stepMs: 5_000 };

  test('visitors queued beyond a pool of 2 listed as six failures: now left out of the sentence', async () => {
    const said = await restoreNamesAfterDiscovery(resolveTarget({ target: stack.target.url() }), {
      runId: 'names-after-discovery',
      bounds,
      poolBound: 8,
    });
    expect(said).not.toMatch(/no backend reached|no answer within/);
    expect(said).toBe("no server connection kept this run's application_name");
  }, 60_000);

  test('control: visitors refused for a reason of their own are still said', async () => {
    const wrong = new URL(stack.target.url());
    wrong.password = 'not-the-password';
    const said = await restoreNamesAfterDiscovery(resolveTarget({ target: wrong.toString() }), {
      runId: 'names-after-discovery',
      bounds,
      poolBound: 2,
    });
    expect(said).toMatch(/could not look at application_name.*(password|AUTH_FAILED)/i);
  }, 60_000);
});
