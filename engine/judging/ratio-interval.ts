/**
 * A ratio of two medians with its uncertainty, by the percentile bootstrap: resample each side's
 * measurements with replacement, take the ratio of the resampled medians, and read the interval
 * from the spread of those ratios. A measured label (capacity/connect-churn's `faster`) is
 * called only when the whole interval lies on one side of 1, so that two runs on one machine
 * do not give two labels for one unclear difference.
 *
 * Hand-written rather than a statistics package: the whole method is a resampling loop and a
 * sort, and the judge must stay pure and repeatable, so the random numbers come from a small
 * generator seeded by the measurements themselves (the same record always gives the same
 * interval).
 */

/** How many resamples: enough for stable 2.5% and 97.5% percentiles, a few ms for 60 samples a side. */
export const RESAMPLES = 2000;

export interface RatioInterval {
  /** median(numerator) / median(denominator). */
  ratio: number;
  /** The 95% interval of the ratio. */
  low: number;
  high: number;
}

/**
 * The ratio median(`num`) / median(`den`) and its 95% percentile-bootstrap interval, or null when
 * a side has no samples or a median of 0. Both samples must be non-empty lists of durations.
 */
export function medianRatioInterval(
  num: readonly number[],
  den: readonly number[],
  resamples = RESAMPLES,
): RatioInterval | null {
  const m = median(num) / median(den);
  if (num.length === 0 || den.length === 0 || !Number.isFinite(m)) return null;
  const random = mulberry32(seedOf([...num, ...den]));
  const a = Float64Array.from(num);
  const b = Float64Array.from(den);
  const ra = new Float64Array(a.length);
  const rb = new Float64Array(b.length);
  const ratios = new Float64Array(resamples);
  let n = 0;
  for (let i = 0; i < resamples; i++) {
    const r = sortedMedian(resampleInto(a, ra, random)) / sortedMedian(resampleInto(b, rb, random));
    if (Number.isFinite(r)) ratios[n++] = r;
  }
  const sorted = ratios.subarray(0, n).sort();
  const at = (q: number): number => sorted[Math.min(n - 1, Math.max(0, Math.floor(q * n)))]!;
  return { ratio: m, low: at(0.025), high: at(0.975) };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `into` filled with a resample of `xs` (with replacement), sorted. */
function resampleInto(xs: Float64Array, into: Float64Array, random: () => number): Float64Array {
  for (let i = 0; i < into.length; i++) into[i] = xs[Math.floor(random() * xs.length)]!;
  return into.sort();
}

/** The median of an already sorted array. */
function sortedMedian(s: Float64Array): number {
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A 32-bit seed from the measurements (FNV-1a over their text). */
function seedOf(xs: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const ch of xs.join(',')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small, well-known 32-bit generator; uniform enough for resampling indices. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
