/**
 * `pooltest watch` arguments: everything after `--` belongs to the command (its own flags are
 * never read as ours), --listen takes HOST:PORT or PORT, and mistakes are BAD_ARGUMENTS.
 */
import { describe, expect, test } from 'vitest';
import { parseWatchArgs } from '../../watch/watch-args.js';
import { exitStatus } from '../../watch/child-command.js';

describe('parseWatchArgs', () => {
  test('the command after -- keeps its own flags', () => {
    const a = parseWatchArgs(['--upstream', 'db:5432', '--json', 'w.json', '--', 'npm', 'test', '--', '--json', 'x']);
    expect(a).toMatchObject({ upstream: 'db:5432', json: 'w.json', command: ['npm', 'test', '--', '--json', 'x'] });
  });

  test.each([
    ['127.0.0.1:6543', { listenHost: '127.0.0.1', listenPort: 6543 }],
    ['6543', { listenHost: '127.0.0.1', listenPort: 6543 }],
    ['[::1]:0', { listenHost: '::1', listenPort: 0 }],
  ])('--listen %s', (value, expected) => {
    expect(parseWatchArgs(['--upstream', 'db', '--listen', value])).toMatchObject(expected);
  });

  test.each([
    [['--', 'npm', 'test'], /needs --upstream/],
    [['--upstream', 'db', '--'], /must be followed by a command/],
    [['--upstream', 'db', '--listen', 'host:99999'], /--listen must be/],
    [['--upstream', 'db', '--report', 'r.json', '--target', 'p:6432'], /give one of them/],
    [['--upstream', 'db', 'npm'], /put the command to run after --/],
    [['--upstream', 'db', '--bogus'], /unknown option --bogus/],
  ])('%j is refused', (argv, message) => {
    expect(() => parseWatchArgs(argv)).toThrow(message);
  });

  test('exit status: the code, or 128 + the signal number', () => {
    expect(exitStatus({ exitCode: 3, signal: null })).toBe(3);
    expect(exitStatus({ exitCode: null, signal: 'SIGTERM' })).toBe(143);
    expect(exitStatus({ exitCode: null, signal: 'SIGINT' })).toBe(130);
  });
});
