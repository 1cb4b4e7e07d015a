/**
 * Ctrl-C during `pooltest drivers`. The command had no signal handling: Node's default killed it
 * at once, so the process died of SIGINT (a shell showed 130, but no exit code was pooltest's),
 * said nothing, and a --stack it had started was never stopped in order. Found by a fresh-eyes
 * trial: `pooltest drivers --target ...` and Ctrl-C after the first results. Now: the line
 * saying what happens, the INTERRUPTED line, exit 130, no agent left running, in seconds.
 * Control: the same command left alone ends by itself with exit 0 and says nothing of an interrupt.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { processFamily } from '../../fixtures/proc-table.js';
import { runCli } from '../support/cli.js';

/** node-postgres alone: a JavaScript agent, no runtime to install. */
const ARGS = ['drivers', '--driver', 'node-postgres', '--no-color'];

describe('pooltest drivers and Ctrl-C', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const target = (): string[] => ['--target', stack.target.url(), '--direct', stack.postgres.url()];

  test('control: left alone, the run ends by itself with exit 0 and no interrupt line', async () => {
    const r = await runCli([...ARGS, ...target(), '--scenario', 'moved'], { timeoutMs: 120_000 });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/node-postgres\/moved@/);
    expect(r.stderr).not.toMatch(/INTERRUPTED|SIGINT/);
  }, 150_000);

  test('Ctrl-C after the first result killed the process silently (died of SIGINT): now INTERRUPTED, exit 130, no agent left', async () => {
    let sentAt: number | null = null;
    let family: number[] = [];
    const r = await runCli([...ARGS, ...target()], {
      timeoutMs: 120_000,
      onSpawn(child) {
        let seen = '';
        child.stderr!.on('data', (d: Buffer) => {
          seen += d.toString();
          if (sentAt !== null || !/^ {2}node-postgres\/\S+: /m.test(seen)) return;
          // The agent of the configuration in flight, and whatever else the command started.
          family = processFamily(child.pid!)
            .map((p) => p.pid)
            .filter((pid) => pid !== child.pid);
          sentAt = performance.now();
          child.kill('SIGINT');
        });
      },
    });
    const endedAt = performance.now();
    expect(sentAt, `no result line came: ${r.stderr}`).not.toBeNull();
    // In seconds: the agent in flight is killed, not waited for.
    expect(endedAt - sentAt!).toBeLessThan(10_000);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/pooltest: SIGINT: stopping the drivers run/);
    expect(r.stderr).toMatch(/pooltest: INTERRUPTED: interrupted by SIGINT before the drivers run finished/);
    expect(r.stderr).not.toMatch(/sweep/);
    // The INTERRUPTED line is the last: no result of the given-up run after it.
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^pooltest: INTERRUPTED: /);
    // SIGKILL is delivered at once but an orphan is reaped a moment later: a short, bounded wait.
    const alive = (): number[] =>
      family.filter((pid) => {
        try {
          return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] !== 'Z';
        } catch {
          return false;
        }
      });
    for (const until = performance.now() + 2_000; alive().length > 0 && performance.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const left = alive().map((pid) => {
      try {
        return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
      } catch {
        return pid;
      }
    });
    expect(left, 'processes the command started still run').toEqual([]);
  }, 150_000);
});
