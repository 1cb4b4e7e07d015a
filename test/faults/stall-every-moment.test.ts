/**
 * A stall at every moment of a check: a conclusion that rests on an absence (nobody received
 * the notification, the state was gone) must never be read from steps a stalled pooler left
 * unanswered. Each check runs once through a fault proxy in front of a transaction-mode
 * PgBouncer, counting the chunks its clients send during the check; then again, once per
 * moment, with the proxy stalling every connection right after the k-th of those chunks (the
 * chunk reaches the pooler, then nothing moves for longer than the step bound). Every faulted
 * run must end by itself within its bound, and read either the unfaulted run's outcome or no
 * outcome at all (inconclusive, with a reason): never another label.
 *
 * Moments sampled (to keep the test near 80 s): for notify/listen, the four chunks from the
 * NOTIFY on (the NOTIFY itself, the observer's COMMIT, A's next SELECT, A's wait: the moments
 * a stalled pooler turned into "dropped") plus four evenly spaced across the check; for
 * session/set-leak, temp/temp-table and session/set-local ("scoped" is an absence here),
 * three evenly spaced. Every other evenly spaced moment drops every connection instead of
 * stalling (a lost connection is an outage, section 5c of INTERPRETING.md).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { run } from '../../runner/run.js';

/** Step bound of every run: a stalled step costs this long. */
const TIMEOUT_MS = 1_500;
/** Longer than the step bound, so the steps in flight when it starts go unanswered. */
const STALL_MS = 2_500;
/** A faulted run still going after this is a hang. */
const RUN_BOUND_MS = 25_000;

interface Case {
  id: string;
  /** Evenly spaced moments across the check. */
  spread: number;
  /** A chunk whose moment matters most (the NOTIFY): it and the next three are tried too. */
  key?: (chunk: Buffer) => boolean;
}

const CASES: Case[] = [
  { id: 'notify/listen', spread: 4, key: (c) => /NOTIFY pooltest_/.test(c.toString('latin1')) },
  { id: 'session/set-leak', spread: 3 },
  { id: 'temp/temp-table', spread: 3 },
  // "scoped" is an absence on this pooler: nobody saw the value after COMMIT.
  { id: 'session/set-local', spread: 3 },
];

type Fault = 'stall' | 'drop';

interface Faulted {
  k: number;
  fault: Fault;
  outcome: string | null;
  reason: string;
  fired: boolean;
  ms: number;
}

describe('a stall or a drop at sampled moments of a check reads the unfaulted outcome or none', () => {
  let stack: Stack;
  let proxy: FaultProxy;
  let url: string;

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    proxy = await startFaultProxy({ upstreamPort: stack.target.port });
    const t = stack.target;
    url = `postgres://${t.user}:${encodeURIComponent(t.password)}@127.0.0.1:${proxy.port}/${t.database}`;
  });
  afterAll(async () => {
    await proxy?.close();
    await stack?.stop();
  });

  /**
   * One run of `id`; `arm` is called when discovery ends (the check is about to start) and
   * the chunk count from then to the end of the checks is returned with the result.
   */
  async function once(id: string, arm: () => void = () => undefined) {
    let from = 0;
    let to = 0;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const report = await Promise.race([
      run({
        target: url,
        direct: stack.postgres.url(),
        only: [id],
        timeoutMs: TIMEOUT_MS,
        profile: 'pgbouncer-transaction',
        onPhase(phase) {
          if (phase === 'discovery') {
            from = proxy.chunks('toServer');
            arm();
          }
          if (phase === 'checks') to = proxy.chunks('toServer');
        },
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${id}: run still going after ${RUN_BOUND_MS} ms`)), RUN_BOUND_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    proxy.resume();
    const check = report.checks.find((c) => c.id === id)!;
    return { check, from, chunks: to - from, ms: Math.round(performance.now() - started) };
  }

  test.each(CASES)(
    '$id',
    async ({ id, spread, key }) => {
      let keyAt = 0;
      const base = await once(id, () => {
        if (key) proxy.afterChunk('toServer', key, () => (keyAt = proxy.chunks('toServer')));
      });
      expect(base.check.outcome, base.check.reason).not.toBeNull();
      // Each moment's fault: a stall, or (every other spread moment) every connection dropped.
      const moments = new Map<number, Fault>();
      if (key) {
        expect(keyAt, 'the key chunk was seen').toBeGreaterThan(0);
        // keyAt counts from the proxy's start; moments count from the check's start.
        const first = keyAt - base.from;
        for (let d = 0; d < 4; d++) moments.set(first + d, 'stall');
      }
      for (let i = 1; i <= spread; i++) {
        const k = Math.max(1, Math.round((i * base.chunks) / (spread + 1)));
        if (!moments.has(k)) moments.set(k, i % 2 === 0 ? 'drop' : 'stall');
      }
      const runs: Faulted[] = [];
      for (const [k, fault] of [...moments].sort((a, b) => a[0] - b[0])) {
        let fired = false;
        const r = await once(id, () =>
          proxy.afterChunk('toServer', k, () => {
            fired = true;
            if (fault === 'stall') proxy.stall(STALL_MS);
            else proxy.drop('all');
          }),
        );
        runs.push({ k, fault, outcome: r.check.outcome, reason: r.check.reason, fired, ms: r.ms });
      }
      console.log(
        `${id}: unfaulted "${base.check.outcome}" (${base.chunks} chunks, ${base.ms} ms); faulted right after chunk\n` +
          runs
            .map(
              (r) =>
                `  ${r.k} (${r.fault}): ${r.outcome ?? 'inconclusive'} (${r.ms} ms${r.fired ? '' : ', never fired'}) ${r.reason}`,
            )
            .join('\n'),
      );
      const wrong = runs.filter((r) => r.outcome !== null && r.outcome !== base.check.outcome);
      expect(wrong.map((r) => `${r.fault} after chunk ${r.k}: "${r.outcome}": ${r.reason}`)).toEqual([]);
      expect(runs.filter((r) => r.outcome === null && !r.reason)).toEqual([]);
      // The moments were inside the check: most stalls fired (the last chunks may belong to the sweep's order).
      expect(runs.filter((r) => r.fired).length).toBeGreaterThanOrEqual(runs.length - 1);
    },
    120_000,
  );
});
