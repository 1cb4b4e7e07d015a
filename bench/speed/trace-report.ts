/**
 * Where a run's round trips go: reads a POOLTEST_TRACE file (engine/record/trace.ts) written by a run
 * at a known delay and prints, per phase and per check, how many round trips each kind of wait
 * kept the run busy for. A kind's figure is the union of its own spans (concurrent spans count
 * once), so kinds that overlap each other add up to more than the phase; "all" is the union of
 * every span, the figure to compare with the wire's count. With --timeline, every span of every
 * check in order, in round trips from the check's start.
 *
 *   node dist/bench/speed/trace-report.js TRACE_FILE --rtt MS [--timeline]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Span {
  kind: string;
  label: string;
  what: string;
  from: number;
  to: number;
}

/** Total length of the union of `[from, to)` intervals, in ms. */
export function unionMs(spans: ReadonlyArray<Pick<Span, 'from' | 'to'>>, lo = -Infinity, hi = Infinity): number {
  const cut = spans
    .map((s) => [Math.max(s.from, lo), Math.min(s.to, hi)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of cut) {
    if (a > end) {
      total += b - a;
      end = b;
    } else if (b > end) {
      total += b - end;
      end = b;
    }
  }
  return total;
}

/** The kind of wait a span is: logins by endpoint role, steps by what their tag says they do. */
function kindOf(s: Span): string {
  if (s.kind === 'login') return s.label === 'spare' || s.label === 'ahead' ? 'login ahead' : 'login';
  const tag = s.what.replace(/^[a-z-]+:(?=[A-Za-z])/, ''); // a phase prefix (set:A.create)
  if (tag.startsWith('engine.other-runs')) return 'other-runs';
  if (/cleanup|release|sweep|visit|tidy/i.test(tag)) return `step ${tag.split('.')[0]}.${tag.split('.').at(-1)}`;
  return `step ${tag}`;
}

/**
 * The wire's busy time in [lo, hi), millisecond by millisecond, blamed on the span being waited
 * for: of the spans active at that moment, a step before a login ahead (which overlaps the
 * check's own work), and among those the one that started last (what the run went on to wait
 * for). '' gets what no span covers.
 */
function blameWire(spans: readonly Span[], wire: readonly Span[], lo: number, hi: number): Map<string, number> {
  const from = Math.floor(lo);
  const busy = new Uint8Array(Math.max(0, Math.ceil(hi) - from));
  for (const c of wire)
    for (let t = Math.max(from, Math.floor(c.from)); t < Math.min(hi, c.to); t++) busy[t - from] = 1;
  const rank = (s: Span): number => (kindOf(s) === 'login ahead' ? 0 : 1);
  const best: Array<Span | undefined> = new Array(busy.length);
  for (const s of spans)
    for (let t = Math.max(from, Math.floor(s.from)); t < Math.min(hi, s.to); t++) {
      const b = best[t - from];
      if (!b || rank(s) > rank(b) || (rank(s) === rank(b) && s.from > b.from)) best[t - from] = s;
    }
  const out = new Map<string, number>();
  busy.forEach((on, i) => {
    if (!on) return;
    const k = best[i] ? kindOf(best[i]!) : '';
    out.set(k, (out.get(k) ?? 0) + 1);
  });
  return out;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { rtt: { type: 'string' }, timeline: { type: 'boolean' } },
  });
  const rtt = Number(values.rtt ?? NaN);
  if (!positionals[0] || !(rtt > 0)) throw new Error('usage: trace-report.js TRACE_FILE --rtt MS [--timeline]');
  const spans: Span[] = readFileSync(positionals[0], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Span);
  const parts = spans.filter((s) => s.kind === 'part');
  const wire = spans.filter((s) => s.kind === 'wire');
  const work = spans.filter((s) => s.kind !== 'part' && s.kind !== 'wire');
  const rt = (ms: number): string => (ms / rtt).toFixed(1).padStart(6);
  const checks = parts.filter((p) => p.what === 'check').sort((a, b) => a.from - b.from);
  const checksPhase = parts.find((p) => p.label === 'run' && p.what === 'checks');
  const windows: Array<{ name: string; from: number; to: number }> = [];
  for (const p of parts.filter((x) => x.label === 'run' && x.what !== 'checks')) windows.push({ name: p.what, ...p });
  checks.forEach((c, i) =>
    windows.push({ name: c.label, from: c.from, to: checks[i + 1]?.from ?? checksPhase?.to ?? c.to }),
  );
  windows.sort((a, b) => a.from - b.from);
  const lines: string[] = [];
  let sum = 0;
  for (const w of windows) {
    const inside = work.filter((s) => s.to > w.from && s.from < w.to);
    const all = unionMs(inside, w.from, w.to);
    const onWire = unionMs(wire, w.from, w.to);
    sum += onWire;
    const byKind = new Map<string, Span[]>();
    for (const s of inside) byKind.set(kindOf(s), [...(byKind.get(kindOf(s)) ?? []), s]);
    const blame = blameWire(inside, wire, w.from, w.to);
    const kinds = [...byKind.entries()]
      .map(([k, ss]) => ({ k, ms: unionMs(ss, w.from, w.to), n: ss.length, wire: blame.get(k) ?? 0 }))
      .sort((a, b) => b.wire - a.wire || b.ms - a.ms);
    lines.push(
      `${w.name.padEnd(34)} wire ${rt(onWire)}   spans ${rt(all)}   wall ${rt(w.to - w.from)}   unexplained wire ${rt(blame.get('') ?? 0)}`,
    );
    for (const k of kinds) lines.push(`    ${k.k.padEnd(40)} wire ${rt(k.wire)}   spans ${rt(k.ms)}  (${k.n})`);
    if (values.timeline) {
      for (const s of [...inside, ...parts.filter((p) => p.label === w.name)].sort((a, b) => a.from - b.from))
        lines.push(
          `      ${rt(s.from - w.from)} +${rt(s.to - s.from)}  ${s.kind.padEnd(5)} ${s.label.padEnd(10)} ${s.what}`,
        );
    }
  }
  lines.push(`sum over windows, on the wire: ${rt(sum)} round trips`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
