/**
 * capacity/burst says which max_connections it runs against. The check's summary (which
 * README's table is generated from) once said 25, the recordings' value, while the embedded
 * fixture `npx pooltest` starts without --target uses the fixture default of 50: the run's
 * own evidence then read "75 at once against max_connections = 50" beside a table saying 25.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { DEFAULT_MAX_CONNECTIONS } from '../../fixtures/postgres-fixture.js';
import { burst } from '../../suites/capacity/burst.check.js';

const REPO = path.resolve(import.meta.dirname, '../..');

test("capacity/burst's summary and INTERPRETING name the embedded fixture's max_connections, not only the recordings'", () => {
  expect(burst.summary).toContain(`max_connections = ${DEFAULT_MAX_CONNECTIONS}`);
  const row = readFileSync(path.join(REPO, 'INTERPRETING.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('| `capacity/burst` | fixture only'));
  expect(row).toHaveLength(1);
  expect(row[0]).toContain(`${DEFAULT_MAX_CONNECTIONS} in the embedded default`);
});
