/**
 * An unreachable host, kept on loopback. A loopback address with nothing listening answers at
 * once with a reset: that is "refused" (TARGET_REFUSED, in test/cli). "Unreachable" means no
 * answer at all, and routing to a really unreachable address is not allowed here; so this
 * builds the same silence on loopback: a listener whose process is stopped (SIGSTOP) and whose
 * accept queue is full, so the kernel drops every further SYN unanswered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';

/** A listener with a one-slot accept queue, in a child process we freeze. */
const LISTENER =
  "const s = require('net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => console.log(s.address().port))";

describe('an unreachable host (SYNs dropped, on loopback)', () => {
  let child: ChildProcess;
  let port: number;
  const fillers: net.Socket[] = [];

  beforeAll(async () => {
    child = spawn(process.execPath, ['-e', LISTENER], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise<number>((resolve) =>
      child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    process.kill(child.pid!, 'SIGSTOP');
    // Fill the accept queue: connections complete in the kernel until it is full.
    for (let i = 0; i < 10; i++) {
      const s = net.connect({ host: '127.0.0.1', port });
      s.on('error', () => undefined);
      fillers.push(s);
      const answered = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), 300);
        s.once('connect', () => {
          clearTimeout(t);
          resolve(true);
        });
      });
      if (!answered) break;
    }
  });
  afterAll(() => {
    for (const s of fillers) s.destroy();
    if (child?.pid) process.kill(child.pid, 'SIGKILL');
  });

  test('TARGET_UNREACHABLE within the timeout, exit 2', async () => {
    const run = await runCli(['--target', `127.0.0.1:${port}`, '--timeout', '2s']);
    console.log(`unreachable: exit ${run.code} in ${run.ms} ms (${/gave up after \d+ ms/.exec(run.stderr)?.[0]})`);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /pooltest: TARGET_UNREACHABLE: no TCP connection to .*127\.0\.0\.1:\d+.* within 2000 ms/,
    );
    // The bound honoured, judged from inside the process (issue 21): timing the whole CLI from
    // here counts its start-up, which under load took more than 5 s by itself. The CLI measures
    // its own wait: at least the 2 s asked for (it did wait, the silence was not taken for a
    // refusal), and short of the 10 s default (which it would be, had --timeout been ignored).
    const waited = /gave up after (\d+) ms/.exec(run.stderr);
    expect(waited, run.stderr).not.toBeNull();
    expect(Number(waited![1])).toBeGreaterThanOrEqual(2_000);
    expect(Number(waited![1])).toBeLessThan(10_000);
  });
});
