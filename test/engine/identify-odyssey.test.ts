/**
 * Discovery names Odyssey from the wording of its own errors: it refuses the admin-console
 * login (database `pgbouncer`, which its Postgres does not have) with "odyssey: c<id>: failed to
 * connect to remote server ...". Odyssey 1.5.1 built from its release tarball; the control is
 * PostgreSQL itself, which refuses the same login in its own words and is named by nobody.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { resolveTarget } from '../../engine/target/target.js';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import { startStack, type Stack } from '../../fixtures/stack.js';

const UNAVAILABLE = await poolerBuildUnavailable('odyssey');
const bounds = { connectMs: 10_000, stepMs: 10_000 };

describe.skipIf(UNAVAILABLE !== null)(`Odyssey 1.5.1${UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : ''}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('odyssey-transaction');
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('discovery names Odyssey by its refusal of the admin-console login; PostgreSQL behind it is named by nobody', async () => {
    const through = await discover(resolveTarget({ target: stack.target.url() }, {}), { bounds, poolBound: 8 });
    expect(through.pooler).toMatchObject({ name: 'Odyssey', version: null });
    expect(through.pooler?.how).toMatch(/odyssey: c/);
    const direct = await discover(resolveTarget({ target: stack.postgres.url() }, {}), { bounds, poolBound: 8 });
    expect(direct.pooler).toBeNull();
  }, 60_000);
});
