/**
 * The command lines of `pooltest audit` and `pooltest watch`, read by common/command-args.ts
 * over node:util's parseArgs: every form the hand-written parsers accepted is still accepted,
 * and every refusal keeps its message.
 */
import { describe, expect, test } from 'vitest';
import { parseAuditArgs } from '../../audit/audit-args.js';
import { readCommandLine } from '../../common/command-args.js';
import { parseWatchArgs } from '../../watch/watch-args.js';

describe('pooltest audit arguments', () => {
  test('a files option takes every argument up to the next option, inline or not, stdin included', () => {
    const a = parseAuditArgs(['--sql', 'a.sql', 'b.sql', '--log=x.log', 'y.log', '--jobs', '2', '--sql', '-']);
    expect(a).toMatchObject({ sql: ['a.sql', 'b.sql', '-'], logs: ['x.log', 'y.log'], jobs: 2 });
  });

  // -h was the help here and is the host now, as in psql and the main command (issue 40).
  test('values inline or after the flag, switches, -?, a duration with its unit', () => {
    const a = parseAuditArgs(['--json=o.json', '--markdown', 'o.md', '--no-color', '-?', '--timeout', '2s']);
    expect(a).toMatchObject({ json: 'o.json', markdown: 'o.md', color: false, help: true, timeoutMs: 2000 });
    expect(parseAuditArgs(['--timeout', '2500ms']).timeoutMs).toBe(2500);
  });

  // `pooltest --timeout 5` is 5 seconds; here a bare 5 was 5 ms: neither is assumed any more.
  test.each([
    ['audit --timeout', () => parseAuditArgs(['--timeout', '5'])],
    ['watch --connect-timeout', () => parseWatchArgs(['--upstream=db:5432', '--connect-timeout', '500', '--', 'x'])],
  ])('%s: a bare number is refused, naming both units', (_, parse) => {
    expect(parse).toThrow(/needs a unit: \d+ms or \d+s/);
  });

  test.each([
    [['--sql'], /--sql needs at least one file/],
    [['--sql', '--log', 'x.log'], /--sql needs at least one file/],
    [['--json', '--markdown', 'x.md'], /--json needs a value/],
    [['--json'], /--json needs a value/],
    [['--jobs', '-1'], /--jobs must be a positive whole number, not "-1"/],
    [['--sqll', 'x.sql'], /unknown option --sqll; did you mean --sql\? \(see pooltest audit --help\)/],
    [['x.sql'], /unexpected argument "x.sql": files go after --sql or --log/],
    [['--sql', 'a.sql', '--', 'b.sql'], /unexpected argument "--"/],
    [['--sql', '-', '--log', '-'], /stdin \(-\) can be read only once/],
    [['--fail-on-findings=yes'], /--fail-on-findings takes no value/],
    [['--log-format', 'xml'], /--log-format must be one of auto, /],
    [['--merge', 'a.json', '--sql', 'b.sql'], /--merge combines finished audit reports/],
  ])('%j is refused with BAD_ARGUMENTS', (argv, message) => {
    expect(() => parseAuditArgs(argv)).toThrow(message);
    expect(() => parseAuditArgs(argv)).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENTS' }));
  });
});

describe('pooltest watch arguments', () => {
  test('an inline value and everything after the first -- untouched', () => {
    const a = parseWatchArgs(['--upstream=db:5432', '--connect-timeout', '500ms', '--', 'node', '--json', '--']);
    expect(a).toMatchObject({ upstream: 'db:5432', connectTimeoutMs: 500, command: ['node', '--json', '--'] });
  });

  test('a value that is an option is a missing value, not a file called "--json"', () => {
    expect(() => parseWatchArgs(['--upstream', '--json', 'w.json'])).toThrow(/--upstream needs a value/);
  });
});

test('control: the options come back in the order written, with the flag as written', () => {
  const line = readCommandLine(
    'x',
    ['-h', '--a=1', '--b', 'f', 'g'],
    {
      a: { type: 'string' },
      b: { type: 'files' },
      help: { type: 'boolean', short: 'h' },
    },
    (arg) => `stray ${arg}`,
  );
  expect(line).toEqual({
    options: [
      { name: 'help', flag: '-h', values: [] },
      { name: 'a', flag: '--a', values: ['1'] },
      { name: 'b', flag: '--b', values: ['f', 'g'] },
    ],
    positionals: [],
    rest: null,
  });
});
