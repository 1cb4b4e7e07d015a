/**
 * One driver agent process (drivers/agents/): spawned, spoken to one JSON line at a time, every
 * step bounded. A step that does not answer within its bound gets the process killed (SIGKILL:
 * a driver stuck in a socket read ignores politeness) and is recorded as `timedOut`; the agent
 * is then dead and every later step on it is recorded as refused without being sent. Agents
 * exit at end of input, and every live one is killed when this process exits, so none outlives
 * pooltest.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Recorder } from '../engine/session/recorder.js';
import type { ErrorRecord, StepRecord } from '../engine/types.js';
import type { AgentCommand } from './catalogue.js';

/** What an agent answers to a step (see drivers/agents/python/agent.py for the protocol). */
export interface AgentAnswer {
  ok: boolean;
  runs?: Array<Record<string, unknown>>;
  pid?: number;
  error?: { type?: string; message?: string; sqlstate?: string | null };
  /** pgjdbc only: ErrorResponses the driver received during the step, from its own log. */
  driverLog?: string[];
  driver?: string;
  version?: string;
}

/** A driver log line is recorded as a notice of this severity (a server error the driver hid). */
export const DRIVER_LOG = 'driver-log';

const live = new Set<ChildProcessWithoutNullStreams>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export class AgentProcess {
  private readonly lines: string[] = [];
  private waiter: (() => void) | null = null;
  private exited = false;
  private spawnError: string | null = null;
  /** Driver name and version from the agent's first line. */
  hello: AgentAnswer | null = null;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly recorder: Recorder,
  ) {
    live.add(child);
    createInterface({ input: child.stdout }).on('line', (l) => {
      this.lines.push(l);
      this.waiter?.();
    });
    child.stderr.resume(); // a driver's chatter must not fill the pipe and block it
    child.stdin.on('error', () => undefined);
    child.on('exit', () => {
      this.exited = true;
      live.delete(child);
      this.waiter?.();
    });
    child.on('error', (err) => {
      this.spawnError = err.message;
      this.exited = true;
      this.waiter?.();
    });
  }

  /**
   * Starts an agent and waits for its hello within `startMs`. Returns the agent, or the reason
   * it cannot run (runtime or driver missing) — the caller skips that driver with it.
   */
  static async start(
    command: AgentCommand,
    label: string,
    recorder: Recorder,
    startMs: number,
  ): Promise<AgentProcess | { skipped: string }> {
    const child = spawn(command.cmd, command.args, { stdio: ['pipe', 'pipe', 'pipe'], env: command.env });
    const agent = new AgentProcess(label, child, recorder);
    const hello = await agent.next(startMs);
    if (hello?.ok) {
      agent.hello = hello;
      return agent;
    }
    agent.kill();
    if (agent.spawnError !== null) return { skipped: `${command.cmd} cannot run: ${agent.spawnError}` };
    if (hello === null) return { skipped: `${command.cmd} did not start within ${startMs} ms` };
    return {
      skipped: `${hello.error?.type ?? 'error'}: ${hello.error?.message ?? 'the agent could not load its driver'}`,
    };
  }

  /** The agent's OS process id (tests check that a killed agent is gone). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends one step and records its answer under `tag`; never throws. */
  async step(tag: string, step: Record<string, unknown>, boundMs: number, what: string): Promise<StepRecord> {
    const startMs = this.recorder.now();
    let answer: AgentAnswer | null = null;
    let timedOut = false;
    if (this.alive) {
      this.child.stdin.write(`${JSON.stringify(step)}\n`);
      answer = await this.next(boundMs);
      if (answer === null && this.alive) {
        timedOut = true;
        this.kill();
      }
    }
    return this.recorder.add(toStep(this.label, tag, what, answer, timedOut, startMs, this.recorder.since(startMs)));
  }

  /** Ends input (the agent exits by itself), then kills it if it has not within `boundMs`. */
  async close(boundMs = 3000): Promise<void> {
    if (!this.alive) return;
    this.child.stdin.end();
    const deadline = Date.now() + boundMs;
    while (this.alive && Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 20));
    this.kill();
  }

  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }

  /** The next line parsed, or null at the bound or when the process ended first. */
  private async next(boundMs: number): Promise<AgentAnswer | null> {
    const deadline = Date.now() + boundMs;
    while (this.lines.length === 0) {
      if (this.exited || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.waiter = null;
    }
    const line = this.lines.shift() ?? '';
    try {
      return JSON.parse(line) as AgentAnswer;
    } catch {
      return {
        ok: false,
        error: { type: 'protocol', message: `the agent wrote a line that is not JSON: ${line.slice(0, 200)}` },
      };
    }
  }
}

/** An agent's answer as a step of the record: the last run's pid, the driver's error verbatim. */
export function toStep(
  session: string,
  tag: string,
  sql: string,
  answer: AgentAnswer | null,
  timedOut: boolean,
  startMs: number,
  durationMs: number,
): Omit<StepRecord, 'seq'> {
  const runs = answer?.runs ?? [];
  const last = runs[runs.length - 1];
  const pid = typeof answer?.pid === 'number' ? answer.pid : typeof last?.pid === 'number' ? last.pid : null;
  let error: ErrorRecord | null = null;
  if (answer === null)
    error = {
      message: timedOut ? 'the agent did not answer within its bound and was killed' : 'the agent is not running',
    };
  else if (!answer.ok) {
    const e = answer.error ?? {};
    error = { message: `${e.type ?? 'Error'}: ${e.message ?? ''}`, ...(e.sqlstate ? { code: e.sqlstate } : {}) };
  }
  return {
    session,
    tag,
    sql,
    pid,
    results: [runs, ...(answer?.pid !== undefined ? [[{ pid: answer.pid }]] : [])],
    error,
    notices: (answer?.driverLog ?? []).map(driverLogNotice),
    notifications: [],
    startMs,
    durationMs,
    timedOut,
    txStatus: null,
  };
}

/**
 * pgjdbc's log line ` <=BE ErrorMessage(ERROR: ... \n  Location: ...\n  Server SQLState: 26000)`
 * as a notice: the server's message and SQLSTATE, verbatim.
 */
export function driverLogNotice(line: string): { severity: string; code?: string; message: string } {
  const message = (line.split('\n')[0] ?? '').replace(/^\s*<=BE ErrorMessage\(/, '').replace(/^ERROR:\s*/, '');
  const code = /Server SQLState: ([0-9A-Z]{5})/.exec(line)?.[1];
  return { severity: DRIVER_LOG, message, ...(code ? { code } : {}) };
}
