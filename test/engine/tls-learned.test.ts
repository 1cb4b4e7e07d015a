/**
 * What a run learned of TLS per endpoint is used wherever it logs in.
 *
 * capacity/connect-churn's cycles log in the way the run learned works at each endpoint. With
 * sslmode=prefer (libpq's default, and the target URL's here) a login first asks for TLS; a
 * pooler without TLS says no, and the login starts over in plaintext on a new TCP connection.
 * The run remembers that answer (engine/session/connect.ts), but the churn's cycles did not use
 * the run's memory: every cycle paid the refused request, a round trip and a TCP connection
 * more, on both sides alike (so the comparison hid it), and at a 20 ms round trip a quarter of
 * the check's time.
 *
 * The check workers get it with the run's data (engine/context/run-state.ts, runData): their first
 * logins used to ask again.
 *
 * Real PgBouncer (no TLS) behind a counting proxy; the run's discovery went through that proxy,
 * so the run knows plaintext works there. The proxy counts SSLRequest messages during the check.
 * Control: a login with a fresh memory sends one, so the count sees what it claims to.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext, runData } from '../../engine/context/run-state.js';
import { Recorder } from '../../engine/session/recorder.js';
import { Session } from '../../engine/session/session.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { connectChurn } from '../../suites/capacity/connect-churn.check.js';
import { discoveredRun, releaseRun } from '../support/discovered-run.js';

/** The 8 bytes of an SSLRequest: length 8, code 80877103. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const RUN_ID = '7e5f1ea2';
const bounds = { connectMs: 5_000, stepMs: 5_000 };
let stack: Stack | undefined;
let proxy: FaultProxy | undefined;
let ctx: RunContext;
let sslRequests = 0;

beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
  proxy = await startFaultProxy({ upstreamPort: stack.target.port });
  // Every chunk towards the pooler is looked at; none is ever faulted.
  const count = (chunk: Buffer): boolean => {
    if (chunk.subarray(0, 8).equals(SSL_REQUEST)) sslRequests++;
    return false;
  };
  proxy.afterChunk('toServer', count, () => undefined);
  const url = new URL(stack.target.url());
  url.port = String(proxy.port);
  ctx = await discoveredRun(url.toString(), stack.postgres.url(), RUN_ID, bounds);
}, 120_000);

afterAll(async () => {
  await releaseRun(ctx);
  await proxy?.close();
  await stack?.stop();
});

test('the target asks for no TLS at all in the churn once the run knows it has none', async () => {
  expect(ctx.target.sslmode).toBe('prefer');
  expect(ctx.state.tlsFirst.size).toBeGreaterThan(0);
  const before = sslRequests;
  const result = await executeCheck(connectChurn, ctx, null);
  const side = result.steps.find((s) => s.tag === 'churn.target');
  const cycles = Number(side?.results[0]?.[0]?.connections ?? 0);
  expect(cycles).toBeGreaterThanOrEqual(10);
  expect(result.outcome).not.toBeNull();
  expect(sslRequests - before).toBe(0);
}, 60_000);

test('control: a login that has learned nothing asks first, and the proxy counts it', async () => {
  const before = sslRequests;
  const s = await Session.open('X', ctx.target, new Recorder(), { ...bounds, applicationName: 'control' });
  await s.close();
  expect(sslRequests - before).toBe(1);
}, 30_000);

test("the run's data carries what it learned: a worker's first login asks for no TLS", async () => {
  // As the workers get it: serialized, then a context of its own with a fresh live state.
  const handed = JSON.parse(JSON.stringify(runData(ctx))) as ReturnType<typeof runData>;
  const worker = runContext(handed);
  expect(worker.state).not.toBe(ctx.state);
  const before = sslRequests;
  await loginAsWorker(worker);
  expect(sslRequests - before).toBe(0);
  // Control: the same data without it asks once.
  const { tlsLearned: _learned, ...forgetful } = handed;
  const fresh = runContext(forgetful);
  await loginAsWorker(fresh);
  expect(sslRequests - before).toBe(1);
}, 30_000);

/** Logs in and out as a check worker's first session does, with the TLS memory of `worker`'s state. */
async function loginAsWorker(worker: RunContext): Promise<void> {
  const s = await Session.open('W', worker.target, new Recorder(), {
    ...bounds,
    applicationName: 'worker',
    tlsFirst: worker.state.tlsFirst,
  });
  await s.close();
}
