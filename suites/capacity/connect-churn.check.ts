/**
 * capacity/connect-churn: does the pooler make connect-per-request traffic faster?
 *
 *   T (through the target) and D (directly, --direct), side by side, up to 60 times each:
 *       connect; SELECT pg_backend_pid() AS pid; disconnect
 *
 * An application without a client-side pool (a serverless function, a PHP request, a CLI
 * invoked per job) pays for a new connection on every request; directly, that is a new backend
 * process each time, while a pooler hands out a server connection it already has. Each cycle is
 * timed from connect to disconnect. Each side runs its cycles one after another, and the two
 * sides run at the same time, so that load from elsewhere on the machine slows both alike (and
 * the measurement takes half as long). A side that has 15 cycles once 600 ms have passed has
 * enough: on loopback a side does 40 or more in that time, while at a distance, where a cycle
 * is several round trips, 60 would cost seconds without changing the p50. At a distance (a
 * round trip of {@link LANE_RTT_MS} ms or more) each side also runs two lanes of cycles at once:
 * a cycle there is mostly waiting on the wire (four round trips: startup, SCRAM's two
 * exchanges, the query), so two lanes halve the wall time without two cycles competing for
 * the CPU, while on loopback, where a cycle is CPU (crypto, a fork), one lane keeps the cycles
 * from slowing each other. Two, never more than the pool: a lane's query never queues behind
 * the other's. Only each side's first cycle is recorded step by step (a few hundred
 * identical steps would drown the report): then each side is one recorded step whose row carries
 * every latency, the backends seen and the failures, and the judge reads only that.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { medianRatioInterval } from '../../engine/judging/ratio-interval.js';
import { stepOf, valueOf } from '../../engine/record/step-reading.js';
import { Recorder } from '../../engine/session/recorder.js';
import { applicationNameFor, Session } from '../../engine/session/session.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Target } from '../../engine/target/target.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  target: 'churn.target',
  direct: 'churn.direct',
} as const;
type SideTag = (typeof TAGS)[keyof typeof TAGS];

/** The tag of one connect cycle's query on a side (`churn.target.cycle`). */
function cycleTag(side: SideTag): string {
  return `${side}.cycle`;
}

/** Cycles per side: enough for a stable p50 and a meaningful p99, a second or two on loopback. */
export const CHURN_CYCLES = 60;
/** The whole measurement stops after this long, whatever the count (a slow remote target). */
const BUDGET_MS = 5000;
/** Cycles per side that suffice once the measurement has lasted {@link ENOUGH_MS}. */
const ENOUGH_CYCLES = 15;
const ENOUGH_MS = 600;
/** Fewer completed cycles than this per side prove nothing. */
const MIN_CYCLES = 10;
/** From this round trip on (discovery's median, ms), each side runs {@link LANES} lanes of cycles. */
export const LANE_RTT_MS = 5;
const LANES = 2;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  faster: {
    means:
      'the median connect, query and disconnect cycle is shorter through the target than directly: the 95% interval of the ratio lies above 1',
  },
  slower: {
    means: 'the median cycle is longer through the target than directly: the 95% interval of the ratio lies below 1',
    advice:
      'Connecting through the pooler costs more than connecting directly here: check its TLS and authentication settings (auth_type, client_tls_*), or use a client-side pool.',
  },
  same: {
    means:
      'no clear difference: the 95% interval of the ratio of the median cycles (directly / through the target) includes 1',
    advice:
      'The pooler does not make new connections cheaper here: an application that connects per request gains little from it; keep connections open in the application, or check that the pooler reuses server connections.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const connectChurn = defineCheck({
  id: 'capacity/connect-churn',
  title: 'connect-per-request traffic through the pooler is faster than directly',
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/current/connect-estab.html (a new backend process per connection)',
    'https://www.pgbouncer.org/features.html (clients reuse server connections)',
  ],
  summary:
    'with `--direct`: connect, one query, disconnect, many times each way; throughput and p50/p99 per side and their ratio',
  outcomes: OUTCOMES,
  flags: ['timing-dependent'],
  leavesNoState: 'each cycle only reads the backend pid',
  skipIf: (ctx) =>
    ctx.direct
      ? null
      : 'needs --direct: the connection cost through the target is compared with connecting to PostgreSQL itself',
  async scenario(scn) {
    const sides = [side(scn, 'T', TAGS.target, scn.ctx.target), side(scn, 'D', TAGS.direct, scn.ctx.direct!)];
    const started = performance.now();
    const deadline = started + BUDGET_MS;
    const lanes = lanesFor(scn.discovery);
    await Promise.all(
      sides.map(async (s) => {
        // Cycles are numbered per side as they start, whichever lane runs them.
        let begun = 0;
        const lane = async (): Promise<void> => {
          while (begun < CHURN_CYCLES && performance.now() < deadline) {
            if (begun >= ENOUGH_CYCLES && performance.now() - started >= ENOUGH_MS) break;
            begun++;
            await s.cycle(deadline);
          }
        };
        await Promise.all(Array.from({ length: lanes }, lane));
      }),
    );
    for (const s of sides) s.record();
  },
  judge: judgeChurn,
});

/** Lanes of cycles per side: two at a distance, within the pool; one on loopback (see the file comment). */
export function lanesFor(d: Pick<Discovery, 'rttMs' | 'poolSize'>): number {
  return d.rttMs >= LANE_RTT_MS ? Math.max(1, Math.min(LANES, d.poolSize ?? LANES)) : 1;
}

interface Side {
  /** One cycle, bounded by what is left of the budget (a stalled target cannot stretch it). */
  cycle(deadline: number): Promise<void>;
  record(): void;
}

/** One side's measurement: cycles on a scratch recorder, then one summary step in the check's record. */
function side(scn: Scenario, label: string, tag: SideTag, target: Target): Side {
  const scratch = new Recorder();
  const latencies: number[] = [];
  const pids = new Set<number>();
  let failures = 0;
  let firstError: string | null = null;
  let recordedOne = false;
  const startMs = scn.recorder.now();
  if (target === scn.ctx.direct) scn.markDirect(label);
  return {
    async cycle(deadline) {
      if (failures >= 5) return; // a side that keeps failing is not measured further
      const t0 = performance.now();
      const left = Math.max(250, Math.round(deadline - t0));
      try {
        // The first cycle is recorded as it happened (its backend is evidence); the rest are summarized.
        const recorder = recordedOne ? scratch : scn.recorder;
        recordedOne = true;
        const s = await Session.open(label, target, recorder, {
          connectMs: Math.min(scn.ctx.bounds.connectMs, left),
          stepMs: Math.min(scn.ctx.bounds.stepMs, left),
          applicationName: applicationNameFor(scn.ctx.runId),
          // TLS or not as the run learned it works there (sslmode=prefer tries TLS first): a
          // cycle is the login the run's own sessions make, not one that first asks for TLS a
          // server without it refuses (a round trip and a TCP connection more, every cycle).
          tlsFirst: scn.ctx.state.tlsFirst,
          ...(scn.signal ? { signal: scn.signal } : {}),
        });
        const step = await s.run(cycleTag(tag), 'SELECT pg_backend_pid() AS pid');
        await s.close();
        if (step.error || step.pid === null)
          throw new Error(step.error ? `${step.error.code ?? ''} ${step.error.message}`.trim() : 'no pid');
        pids.add(step.pid);
        latencies.push(Math.round((performance.now() - t0) * 100) / 100);
      } catch (err) {
        failures++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    },
    record() {
      scn.recorder.statements += scratch.statements;
      scn.note(label, tag, `(connect; SELECT pg_backend_pid() AS pid; disconnect) x ${latencies.length + failures}`, {
        startMs,
        facts: {
          connections: latencies.length,
          failures,
          firstError,
          backends: pids.size,
          latenciesMs: latencies.join(','),
        },
      });
    },
  };
}

interface Measured {
  latencies: number[];
  connections: number;
  failures: number;
  perSecond: number;
  p50: number;
  p99: number;
  backends: number;
}

/**
 * - Either side missing, or fewer than 10 cycles completed on a side, or more than a tenth of
 *   a side's cycles failed: inconclusive (a failing side is not a speed).
 * - speedup = median direct cycle / median target cycle, with its 95% bootstrap interval
 *   (engine/judging/ratio-interval.ts): `faster` when the whole interval lies above 1, `slower`
 *   when below, else `same` (no clear difference). One run's point ratio may be 1.4 or 0.8 on a
 *   busy machine; only an interval that excludes 1 is a label. Throughput (sequential
 *   connections per second) and p99 are facts, and so are the ratio and its interval.
 */
export function judgeChurn(steps: readonly StepRecord[]): Judgement<Label> {
  const t = measured(stepOf(steps, TAGS.target));
  const d = measured(stepOf(steps, TAGS.direct));
  if (!t || !d) return { outcome: null, facts: {}, reason: `no measurement ${t ? 'directly' : 'through the target'}` };
  const interval = medianRatioInterval(d.latencies, t.latencies);
  const facts = {
    targetConnections: t.connections,
    targetFailures: t.failures,
    targetPerSecond: t.perSecond,
    targetP50Ms: t.p50,
    targetP99Ms: t.p99,
    targetBackends: t.backends,
    directConnections: d.connections,
    directFailures: d.failures,
    directPerSecond: d.perSecond,
    directP50Ms: d.p50,
    directP99Ms: d.p99,
    directBackends: d.backends,
    speedup: interval ? round2(interval.ratio) : null,
    speedupLow: interval ? round2(interval.low) : null,
    speedupHigh: interval ? round2(interval.high) : null,
  };
  for (const [name, m] of [
    ['through the target', t],
    ['directly', d],
  ] as const) {
    if (m.connections < MIN_CYCLES)
      return {
        outcome: null,
        facts,
        reason: `only ${m.connections} connect cycles completed ${name} (${m.failures} failed)`,
      };
    if (m.failures * 10 > m.connections + m.failures)
      return {
        outcome: null,
        facts,
        reason: `${m.failures} of ${m.connections + m.failures} connect cycles failed ${name}`,
      };
  }
  const text = `p50 ${t.p50} ms / p99 ${t.p99} ms per connect cycle through the target (${t.perSecond}/s, ${t.backends} backend(s)), p50 ${d.p50} ms / p99 ${d.p99} ms directly (${d.perSecond}/s, ${d.backends} backend(s))`;
  if (!interval) return { outcome: null, facts, reason: `no ratio: a median cycle of 0 ms (${text})` };
  const ratio = `${facts.speedup}x (95% interval ${facts.speedupLow}-${facts.speedupHigh})`;
  if (interval.low > 1) return { outcome: 'faster', facts, reason: `${ratio} faster through the target: ${text}` };
  if (interval.high < 1) return { outcome: 'slower', facts, reason: `${ratio}: slower through the target: ${text}` };
  return { outcome: 'same', facts, reason: `no clear difference, ${ratio} includes 1: ${text}` };
}

function measured(step: StepRecord | undefined): Measured | null {
  const raw = valueOf(step, 'latenciesMs');
  if (typeof raw !== 'string') return null;
  const ms =
    raw === ''
      ? []
      : raw
          .split(',')
          .map(Number)
          .filter((n) => Number.isFinite(n) && n >= 0);
  const failures = Number(valueOf(step, 'failures') ?? 0);
  const backends = Number(valueOf(step, 'backends') ?? 0);
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    latencies: ms,
    connections: ms.length,
    failures,
    perSecond: total > 0 ? Math.round((ms.length / total) * 1000) : 0,
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    backends,
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Nearest-rank quantile, to a hundredth of a millisecond (0 for no samples). */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
