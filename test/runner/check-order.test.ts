/**
 * Checks run in one fixed order, the damaging ones last: red before, when Vitest's own
 * sequencer (cached durations, past failures) reordered the files from run to run.
 */
import { describe, expect, test } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { isDestructive, runOrder, sequencerFor } from '../../runner/check-order.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const ids = CATALOGUE.map((c) => c.id);

describe('check order', () => {
  test('pool-damaging checks are flagged destructive as data', () => {
    expect(ids.filter(isDestructive)).toEqual(['transactions/abandoned', 'capacity/burst']);
  });

  test('destructive checks run after all the others, in catalogue order, whatever order they were asked in', () => {
    const order = runOrder([...ids].reverse());
    expect(order.slice(-2)).toEqual(['transactions/abandoned', 'capacity/burst']);
    expect(order.slice(0, -2)).toEqual(ids.filter((id) => !isDestructive(id)));
    expect(runOrder(['capacity/burst', 'session/set-leak', 'transactions/abandoned'])).toEqual([
      'session/set-leak',
      'transactions/abandoned',
      'capacity/burst',
    ]);
  });

  test('the sequencer sorts files by the order of the filters, not by path or history', async () => {
    const filters = runOrder(ids).map((id) => `suites/${id}.test.`);
    const specs = ids.map((id) => ({ moduleId: `/x/dist/suites/${id}.test.js` }) as TestSpecification);
    const Sequencer = sequencerFor(filters);
    // Shuffled input (reversed, then rotated): the output must not depend on it.
    const shuffled = [...specs].reverse();
    shuffled.push(...shuffled.splice(0, 7));
    const sorted = await new Sequencer(null as never).sort(shuffled);
    expect(sorted.map((s) => /suites\/(.+)\.test\.js$/.exec(s.moduleId)![1])).toEqual(runOrder(ids));
  });
});
