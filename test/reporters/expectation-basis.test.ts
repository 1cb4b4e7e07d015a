/** A failed expectation says how it was known: one nobody here ever observed is marked so. */
import { describe, expect, test } from 'vitest';
import { expectationText } from '../../reporters/terminal-reporter.js';

describe('expectation basis where a check fails', () => {
  test('a documented expectation is marked as never observed by pooltest', () => {
    expect(
      expectationText({
        expected: 'lost',
        expectedRef: 'postgresml/pgcat@692353c8:src/server.rs',
        expectedBasis: 'source',
      }),
    ).toBe('lost (source, never observed by pooltest) per postgresml/pgcat@692353c8:src/server.rs');
  });
  test('an observed one says so', () => {
    expect(expectationText({ expected: 'leaked', expectedRef: 'x/y@1:z.md', expectedBasis: 'observed' })).toMatch(
      /observed by pooltest on its fixtures/,
    );
  });
  test('an expectations file that states no basis is not passed off as observed', () => {
    expect(expectationText({ expected: 'leaked', expectedRef: null, expectedBasis: null })).toBe(
      'leaked (basis not stated) per no reference',
    );
  });
});
