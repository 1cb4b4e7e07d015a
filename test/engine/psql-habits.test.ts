/**
 * psql's and libpq's habits, without a server (issue 20): -h/-p/-U/-d, a connection string given
 * to -d, libpq keyword/value strings, Unix socket directories in PGHOST and in URLs.
 */
import { describe, expect, test } from 'vitest';
import { parseCli } from '../../cli/args.js';
import { PooltestError } from '../../engine/record/errors.js';
import { netAddress, redactUrl, resolveTarget } from '../../engine/target/target.js';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof PooltestError ? e.code : 'not a PooltestError';
  }
}

describe('psql options', () => {
  test('-h is the host, -p the port, -U the user, -d the database; -? and -V are help and version', () => {
    expect(parseCli(['-h', 'db', '-p', '6432', '-U', 'app', '-d', 'appdb'])).toMatchObject({
      host: 'db',
      port: 6432,
      user: 'app',
      database: 'appdb',
    });
    expect(parseCli(['--host', 'db', '--username', 'app', '--dbname', 'x'])).toMatchObject({
      host: 'db',
      user: 'app',
      database: 'x',
    });
    expect(parseCli(['-?']).help).toBe(true);
    expect(parseCli(['--help']).help).toBe(true);
    expect(parseCli(['-V']).version).toBe(true);
  });
  test('-h without a value is refused, saying help is --help or -?', () => {
    expect(() => parseCli(['-h'])).toThrow(/-h is the host: help is --help or -\?/);
  });
  test('-p must be a TCP port', () => {
    expect(codeOf(() => parseCli(['-p', '70000']))).toBe('BAD_ARGUMENTS');
    expect(codeOf(() => parseCli(['-p', 'abc']))).toBe('BAD_ARGUMENTS');
  });
  test('a URL or keyword=value string given to -d is the connection string, as in psql', () => {
    const url = parseCli(['-d', 'postgres://app@db:6432/appdb']);
    expect(url.target).toBe('postgres://app@db:6432/appdb');
    expect(url.database).toBeUndefined();
    expect(parseCli(['-d', 'host=db port=6432']).target).toBe('host=db port=6432');
    // Two connection strings: refused rather than one silently winning.
    expect(codeOf(() => parseCli(['--target', 'db:1', '-d', 'host=other']))).toBe('BAD_ARGUMENTS');
  });
  test('-h and -p win over what the target says; the target wins over PG* variables', () => {
    const t = resolveTarget({ target: 'postgres://u@db:1/d', host: 'other', port: 2 }, { PGHOST: 'env', PGPORT: '3' });
    expect(t).toMatchObject({ host: 'other', port: 2, user: 'u', database: 'd' });
  });
});

describe('libpq keyword/value strings', () => {
  test('host, port, user, dbname, password and sslmode are read, quoted values and escapes too', () => {
    const t = resolveTarget(
      { target: "host=db port = 6432 user=app dbname='my db' password='it\\'s' sslmode=require" },
      {},
    );
    expect(t).toMatchObject({
      host: 'db',
      port: 6432,
      user: 'app',
      database: 'my db',
      password: "it's",
      sslmode: 'require',
    });
  });
  test.each(['host=db port', "host='db", 'host=db port=x', 'host=db frobnicate=1', 'host=db sslmode=sometimes'])(
    '%s is a BAD_TARGET_URL',
    (text) => expect(codeOf(() => resolveTarget({ target: text }, {}))).toBe('BAD_TARGET_URL'),
  );
  test('a keyword/value password is never repeated', () => {
    expect(redactUrl('host=db password=hunter2 user=u')).toBe('host=db password=*** user=u');
    expect(redactUrl("host=db password='a b' user=u")).not.toContain('a b');
    let message = '';
    try {
      resolveTarget({ target: 'host=db password=hunter2 bogus=1' }, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('bogus');
    expect(message).not.toContain('hunter2');
  });
});

describe('Unix socket directories', () => {
  test.each([
    ['PGHOST', resolveTarget({}, { PGHOST: '/var/run/postgresql', PGPORT: '5433' })],
    ['%2F in the URL host', resolveTarget({ target: 'postgres://app@%2Fvar%2Frun%2Fpostgresql:5433/db' }, {})],
    ['host= in the URL query', resolveTarget({ target: 'postgresql:///db?host=/var/run/postgresql&port=5433' }, {})],
    [
      'host=%2F in the URL query',
      resolveTarget({ target: 'postgresql:///db?host=%2Fvar%2Frun%2Fpostgresql&port=5433' }, {}),
    ],
    ['a keyword/value string', resolveTarget({ target: 'host=/var/run/postgresql port=5433' }, {})],
    ['a bare directory', resolveTarget({ target: '/var/run/postgresql', port: 5433 }, {})],
  ])('%s: the socket file is connected to, never a name looked up', (_, t) => {
    expect(t.host).toBe('/var/run/postgresql');
    expect(netAddress(t)).toEqual({ path: '/var/run/postgresql/.s.PGSQL.5433' });
  });
  test('a host name is still host and port', () => {
    expect(netAddress({ host: 'db', port: 1 })).toEqual({ host: 'db', port: 1 });
  });
});
