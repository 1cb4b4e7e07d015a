/**
 * The wire guard on a bare pg.Client against the misbehaving server, each client in a child
 * process with a hard kill: a client that spins in pg-protocol's parser cannot be stopped from
 * inside (no timer fires), and the test itself must never hang.
 *
 * Red before: without the guard, the real-world ErrorResponse (53300, terminator outside its
 * declared length, the stray byte 200 ms later) hangs the client until it is killed. Through
 * the guard every fault ends in milliseconds with PROTOCOL_VIOLATION, and a valid answer
 * split into one-byte packets is accepted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAULT_KINDS, type FaultKind } from '../../fixtures/misbehaving-server.js';
import { makeSelfSignedCert } from '../../fixtures/tls-cert.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'client-child.mjs');
/** The child's client gives up connecting after 2 s by itself; a child alive at 6 s is hung. */
const KILL_AFTER_MS = 6_000;

interface ChildEnd {
  result: {
    ok: boolean;
    code?: string | null;
    message?: string;
    rows?: unknown[];
    encrypted?: boolean;
    ms: number;
    violation?: { type: string; declaredLength: number } | null;
  } | null;
  killed: boolean;
  ms: number;
}

function runChild(opts: {
  fault: FaultKind;
  at?: 'startup' | number;
  lateMs?: number | null;
  guard: boolean;
  tls?: { cert: string; key: string };
}): Promise<ChildEnd> {
  const started = performance.now();
  const child = spawn(process.execPath, [CHILD, JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: path.dirname(CHILD),
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, KILL_AFTER_MS);
  return new Promise((resolve) => {
    child.on('close', () => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      resolve({
        result: line ? (JSON.parse(line) as ChildEnd['result']) : null,
        killed,
        ms: Math.round(performance.now() - started),
      });
    });
  });
}

describe('the wire guard on a bare pg.Client', () => {
  test('control, without the guard: the real-world 53300 ErrorResponse hangs pg until killed from outside', async () => {
    const end = await runChild({ fault: 'error-terminator-late', lateMs: 200, guard: false });
    expect(end.killed, JSON.stringify(end.result)).toBe(true);
    expect(end.result).toBeNull();
  });

  test('through the guard: the same message ends the connect at once with PROTOCOL_VIOLATION and the evidence', async () => {
    const end = await runChild({ fault: 'error-terminator-late', lateMs: 200, guard: true });
    expect(end.killed).toBe(false);
    expect(end.result).toMatchObject({
      ok: false,
      code: 'PROTOCOL_VIOLATION',
      violation: { type: 'E', declaredLength: 58 },
    });
    expect(end.result!.message).toMatch(
      /ErrorResponse \('E'\), declared length 58, actual 59: .*terminator.*: 45 00 00 00 3a/,
    );
    expect(end.result!.ms).toBeLessThan(1_000);
  });

  test('the stray byte never coming changes nothing; a fault at the first query fails that query', async () => {
    const never = await runChild({ fault: 'error-terminator-late', lateMs: null, guard: true });
    expect(never.result).toMatchObject({ ok: false, code: 'PROTOCOL_VIOLATION' });
    const atQuery = await runChild({ fault: 'error-terminator-late', at: 1, guard: true });
    expect(atQuery.result).toMatchObject({ ok: false, code: 'PROTOCOL_VIOLATION' });
  });

  test.each(FAULT_KINDS.filter((k) => k !== 'split' && k !== 'error-terminator-late'))(
    '%s: PROTOCOL_VIOLATION at startup and at a query, bounded',
    async (fault) => {
      for (const at of ['startup', 1] as const) {
        const end = await runChild({ fault, at, guard: true });
        expect(end.killed).toBe(false);
        expect(end.result, `${fault} at ${at}`).toMatchObject({ ok: false, code: 'PROTOCOL_VIOLATION' });
        expect(end.result!.message).toMatch(
          /protocol violation by the server: .*bytes at stream offset \d+: [0-9a-f]{2}/,
        );
      }
    },
  );

  test('split: a valid startup and answer, one byte per packet, are accepted unchanged', async () => {
    for (const at of ['startup', 1] as const) {
      const end = await runChild({ fault: 'split', at, guard: true });
      expect(end.result, `split at ${at}`).toMatchObject({ ok: true, rows: [{ pid: '40000' }] });
    }
  });
});

describe('the wire guard under TLS: it validates the decrypted bytes', () => {
  let dir: string;
  let tls: { cert: string; key: string };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-wire-tls-'));
    const files = await makeSelfSignedCert(dir);
    tls = { cert: readFileSync(files.certFile, 'utf8'), key: readFileSync(files.keyFile, 'utf8') };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the 53300 ErrorResponse inside TLS: PROTOCOL_VIOLATION with the plaintext bytes', async () => {
    const end = await runChild({ fault: 'error-terminator-late', guard: true, tls });
    expect(end.result).toMatchObject({
      ok: false,
      code: 'PROTOCOL_VIOLATION',
      violation: { type: 'E', declaredLength: 58 },
    });
    expect(end.result!.message).toMatch(/bytes at stream offset 0: 45 00 00 00 3a/);
  });

  test('control: a valid conversation inside TLS, split into one-byte packets, is accepted', async () => {
    const end = await runChild({ fault: 'split', at: 1, guard: true, tls });
    expect(end.result).toMatchObject({ ok: true, rows: [{ pid: expect.stringMatching(/^\d+$/) }], encrypted: true });
  });
});
