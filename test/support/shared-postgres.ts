/**
 * One PostgreSQL for a whole test file, with a pooler stack in front of it per describe block,
 * started before the block's tests and stopped after: fewer server starts, seconds on a loaded
 * machine. Nothing starts when `enabled` is false (a pooler build that is unavailable).
 */
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack, type StackName } from '../../fixtures/stack.js';

export interface SharedPostgres {
  /** The file's PostgreSQL (only inside tests and hooks, once started). */
  postgres(): PostgresFixture;
  /** A stack in front of that PostgreSQL for the enclosing describe block. */
  useStack(name: StackName): () => Stack;
}

export function sharedPostgres(enabled: boolean): SharedPostgres {
  let postgres: PostgresFixture | undefined;
  beforeAll(async () => {
    if (enabled) postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  return {
    postgres: () => {
      if (!postgres) throw new Error('the shared PostgreSQL is not started (disabled, or used outside a test)');
      return postgres;
    },
    useStack(name) {
      let stack: Stack | undefined;
      beforeAll(async () => {
        if (enabled) stack = await startStack(name, { postgresFixture: postgres! });
      }, 120_000);
      afterAll(async () => {
        await stack?.stop();
      });
      return () => stack!;
    },
  };
}
