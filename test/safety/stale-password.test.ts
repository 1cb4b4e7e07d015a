/**
 * auth/stale-password changes the login's password on a real fixture: afterwards the original
 * must log in again, directly and through the pooler, and neither password may appear in any
 * output (JSON, terminal, Markdown, HTML, JUnit). Through a non-fixture target it is skipped.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { run } from '../../runner/run.js';

describe('auth/stale-password on a fixture', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('restores the password, prints none, and is skipped where the target is not a fixture', async () => {
    const report = await run({
      target: stack.target.url(),
      direct: stack.postgres.url(),
      only: ['auth/stale-password'],
      fixture: true,
    });
    const check = report.checks[0]!;
    expect(check.outcome, check.reason).toBe('old-accepted');
    expect(check.cleanup.ok, check.cleanup.detail).toBe(true);
    for (const url of [stack.postgres.url(), stack.target.url()]) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
      await client.end();
    }
    const outputs = [
      JSON.stringify(report),
      renderReport(report, { color: false, verbose: true }),
      renderMarkdown(report),
      renderHtml(report),
      renderJunit(report),
    ];
    for (const text of outputs) {
      expect(text).not.toContain(stack.target.password);
      expect(text).not.toMatch(/pooltest-[0-9a-f]{24}/);
    }
    const shared = await run({
      target: stack.target.url(),
      direct: stack.postgres.url(),
      only: ['auth/stale-password'],
    });
    expect(shared.checks[0]).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/fixtures only/) });
  });
});
