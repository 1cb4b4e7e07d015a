/**
 * The benchmark's floor, as a Vitest test: one connection through the target and one query.
 * Run by floor-main.ts in a fresh Node process, so that Node, Vitest and one round trip through
 * the same pooler are all the floor contains.
 */
import pg from 'pg';
import { expect, inject, test } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    floorUrl: string;
  }
}

test('one query through the target', async () => {
  const client = new pg.Client({ connectionString: inject('floorUrl'), connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const r = await client.query('SELECT 1 AS one');
    expect(r.rows[0]?.one).toBe(1);
  } finally {
    await client.end();
  }
});
