/**
 * Progress while checks run, on stderr: which check is running and how many are left. The
 * total is known before the run (the CLI resolves --only/--skip first); Vitest only tells us
 * which file started and which result arrived. On a terminal the running check is shown on one
 * line that the result then overwrites; in a CI log (no TTY) only result lines are written, so
 * the log has no half lines.
 */
import { Chalk } from 'chalk';
import type { CheckResult } from '../engine/types.js';
import { verdictText } from './terminal-reporter.js';
import { oneLine, terminalSafe } from './terminal-text.js';

export interface ProgressOptions {
  /** Checks selected for this run. */
  total: number;
  color: boolean;
  /** Whether the stream is a terminal (one rewritten line per check). */
  tty: boolean;
  /** Prefix naming the run, when one invocation makes several (`--compare`). */
  label?: string;
  write(text: string): void;
}

/** The callbacks `run()` accepts as `onCheckStart` / `onCheckResult`. */
export interface Progress {
  onCheckStart(file: string): void;
  onCheckResult(result: CheckResult): void;
  /** A check waits (for the target to come back): say what for, and for how long at most. */
  onWait(what: string, boundMs: number): void;
}

/** Starts counting; call the callbacks as run() reports. */
export function createProgress(opts: ProgressOptions): Progress {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const prefix = opts.label ? `${opts.label} ` : '';
  let done = 0;
  let pending = false;
  const counter = (n: number): string => `[${String(n).padStart(String(opts.total).length)}/${opts.total}]`;
  return {
    onCheckStart(file) {
      if (!opts.tty) return;
      opts.write(`\r\x1b[2K${c.dim(`  ${prefix}${counter(done + 1)} ${checkIdOf(file)} ...`)}`);
      pending = true;
    },
    onCheckResult(result) {
      // Printed like any report's fields: through the one sanitiser the other renderers use.
      const r = terminalSafe(result);
      done += 1;
      const left = Math.max(0, opts.total - done);
      const line = `  ${prefix}${counter(done)} ${r.id}: ${r.outcome ?? 'no outcome'} ${verdictText(r.verdict, c, r)} (${r.durationMs} ms), ${left === 0 ? 'done' : `${left} left`}`;
      opts.write(`${pending ? '\r\x1b[2K' : ''}${line}\n`);
      pending = false;
    },
    onWait(what, boundMs) {
      // A line of its own, also without a TTY: a run that seems stuck says why.
      opts.write(
        `${pending ? '\r\x1b[2K' : ''}${c.dim(`  ${prefix}${counter(done + 1)} waiting up to ${Math.round(boundMs / 1000)} s for ${oneLine(what)}`)}\n`,
      );
      pending = false;
    },
  };
}

/** `suites/session/set-leak.test.ts` (or `.js` from dist) names check `session/set-leak`. */
export function checkIdOf(file: string): string {
  const m = /suites[\\/](.+)\.test\.[cm]?[jt]s$/.exec(file);
  return m ? m[1]!.replace(/\\/g, '/') : file;
}
