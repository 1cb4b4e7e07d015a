/**
 * Target resolution as psql does it (flags, then the URL, then PG* variables), and redaction:
 * what a user typed must never come back with its password.
 */
import os from 'node:os';
import { describe, expect, test } from 'vitest';
import { PooltestError } from '../../engine/record/errors.js';
import { parseDuration } from '../../cli/args.js';
import { targetText } from '../../reporters/report-text.js';
import { describeTarget, publicTarget, redactUrl, resolveRelated, resolveTarget } from '../../engine/target/target.js';

describe('resolveTarget', () => {
  test('host:port with PG* defaults for the rest', () => {
    const t = resolveTarget(
      { target: 'pooler.internal:6432' },
      { PGUSER: 'app', PGDATABASE: 'appdb', PGPASSWORD: 'pw' },
    );
    expect(t).toEqual({
      host: 'pooler.internal',
      port: 6432,
      user: 'app',
      password: 'pw',
      database: 'appdb',
      sslmode: 'prefer',
    });
  });
  test('a URL wins over PG* variables, flags win over the URL', () => {
    const env = { PGUSER: 'envuser', PGHOST: 'envhost', PGPORT: '7000' };
    const t = resolveTarget(
      { target: 'postgresql://urluser:s%40cret@db:6543/urldb?sslmode=require', database: 'flagdb' },
      env,
    );
    expect(t).toEqual({
      host: 'db',
      port: 6543,
      user: 'urluser',
      password: 's@cret',
      database: 'flagdb',
      sslmode: 'require',
    });
  });
  test('no target at all: PGHOST/PGPORT, then libpq defaults; the user defaults to the OS user, as in libpq', () => {
    // libpq takes the effective user's name from the OS and ignores $USER (issue 20: was $USER, else `postgres`).
    const me = os.userInfo().username;
    expect(resolveTarget({}, { PGHOST: 'h', PGPORT: '6432', USER: 'someone-else' })).toMatchObject({
      host: 'h',
      port: 6432,
      user: me,
      database: me,
    });
  });
  test('IPv6 in brackets', () => {
    expect(resolveTarget({ target: '[::1]:6432' }, {})).toMatchObject({ host: '::1', port: 6432 });
  });
  test('a bare IPv6 literal is a host, as a bare host name is; a port needs the brackets', () => {
    expect(resolveTarget({ target: '::1' }, {})).toMatchObject({ host: '::1', port: 5432 });
    expect(resolveTarget({ target: 'fe80::1:2' }, {})).toMatchObject({ host: 'fe80::1:2', port: 5432 });
    expect(resolveTarget({ target: '[::1]' }, {})).toMatchObject({ host: '::1', port: 5432 });
    expect(() => resolveTarget({ target: '::g' }, {})).toThrowError(/not host:port/);
  });
  test('an IPv6 host is shown in brackets, so its port reads apart from it', () => {
    expect(describeTarget(resolveTarget({ target: 'postgres://u@[::1]:1/d' }, {}))).toBe('u@[::1]:1/d');
    expect(describeTarget(resolveTarget({ target: 'h:1' }, { PGUSER: 'u', PGDATABASE: 'd' }))).toBe('u@h:1/d');
    expect(targetText({ user: 'u', host: '::1', port: 1, database: 'd', ssl: 'disable' })).toBe('u@[::1]:1/d');
  });
  test.each([
    'postgress://h:1/db',
    'http://h:1',
    'h:0',
    'h:70000',
    'h:port',
    'postgres://h:99999/db',
    'postgres://h/db?sslmode=sometimes',
  ])('%s is a BAD_TARGET_URL', (text) => {
    let err: unknown;
    try {
      resolveTarget({ target: text }, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PooltestError);
    expect((err as PooltestError).code).toBe('BAD_TARGET_URL');
  });
  test.each(['bogus=1', 'options=-c%20statement_timeout%3D1', 'application_name=zz', 'passwd=hunter3'])(
    'a URL query keyword pooltest does not use (?%s) is refused as in a keyword/value string, without the password',
    (query) => {
      let err: unknown;
      try {
        resolveTarget({ target: `postgres://u:hunter2@h:1/db?sslmode=disable&${query}` }, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PooltestError);
      expect((err as PooltestError).code).toBe('BAD_TARGET_URL');
      expect((err as Error).message).toContain(`connection keyword "${query.split('=')[0]}"`);
      expect((err as Error).message).not.toMatch(/hunter[23]/);
    },
  );
  test('the query keywords pooltest uses are still read from a URL (control)', () => {
    const t = resolveTarget({ target: 'postgres://u@h:1/db?host=h2&port=7&sslmode=disable&dbname=d2' }, {});
    expect(t).toMatchObject({ host: 'h2', port: 7, database: 'd2', sslmode: 'disable' });
  });
  test("a mistyped URL's error does not repeat its password", () => {
    try {
      resolveTarget({ target: 'postgress://u:hunter2@h:1/db' }, {});
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });
  test('--direct inherits what it does not spell out', () => {
    const base = resolveTarget({ target: 'postgres://u:pw@pooler:6432/app' }, {});
    expect(resolveRelated('db:5432', base)).toMatchObject({
      host: 'db',
      port: 5432,
      user: 'u',
      password: 'pw',
      database: 'app',
    });
    expect(resolveRelated('postgres://admin@db/other', base)).toMatchObject({
      host: 'db',
      port: 6432,
      user: 'admin',
      password: 'pw',
      database: 'other',
    });
  });
});

describe('redaction', () => {
  test('public forms carry no password', () => {
    const t = resolveTarget({ target: 'postgres://u:topsecret@h:1/d' }, {});
    expect(JSON.stringify(publicTarget(t))).not.toContain('topsecret');
    expect(describeTarget(t)).toBe('u@h:1/d');
    expect(redactUrl('see postgres://u:topsecret@h:1/d and postgresql://x:y@z/w')).toBe(
      'see postgres://u:***@h:1/d and postgresql://x:***@z/w',
    );
  });
});

describe('--timeout', () => {
  test.each([
    ['10s', 10_000],
    ['2500ms', 2500],
    ['1.5', 1500],
    ['3', 3000],
  ])('%s is %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  test.each(['10 minutes', '-1s', '50ms', '2h'])('%s is rejected', (text) =>
    expect(() => parseDuration(text)).toThrow(PooltestError),
  );
});

describe('redaction of mistyped targets', () => {
  test.each(['alice:s3cret@db.example:6432', 'postgres:/alice:s3cret@db:6432', 'postgres//alice:s3cret@db'])(
    '"%s" is refused without echoing its password',
    (text) => {
      let message = '';
      try {
        resolveTarget({ target: text }, {});
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/BAD|not/);
      expect(message).not.toContain('s3cret');
      expect(redactUrl(message)).not.toContain('s3cret');
    },
  );
  // A URL parser reads everything between the user's ':' and the last '@' as the password:
  // so must the echo of what was typed (a raw space is even valid there).
  test.each([
    ['postgres://alice:s3cret word@exa mple:5/db', 'postgres://alice:***@exa mple:5/db'],
    ['postgres://alice:s3cret@x@127.0.0.1:99999/db', 'postgres://alice:***@127.0.0.1:99999/db'],
    ['alice:s3cret word@127.0.0.1:1', 'alice:***@127.0.0.1:1'],
  ])('"%s" is echoed as "%s"', (text, shown) => {
    let message = '';
    try {
      resolveTarget({ target: text }, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`"${shown}"`);
    expect(message).not.toContain('s3cret');
  });
  test('a bad --direct or --compare is named as such, and a port past 65535 in a URL is said to be one', () => {
    const base = resolveTarget({ target: '127.0.0.1:6432' }, {});
    expect(() => resolveRelated('postgres://u:pw@h:70000/db', base, {})).toThrow(
      'port "70000" in "postgres://u:***@h:70000/db" is not a TCP port',
    );
    expect(() => resolveRelated('postgres://u:pw@bad host/db', base, {}, () => undefined, '--compare')).toThrow(
      '--compare "postgres://u:***@bad host/db" is not a valid URL',
    );
    expect(() => resolveRelated('', base, {})).toThrow(/^--direct is empty/);
  });
  test('text without credentials is left alone', () => {
    expect(redactUrl('pooltest@127.0.0.1:5432/pooltest and host:6432')).toBe(
      'pooltest@127.0.0.1:5432/pooltest and host:6432',
    );
  });
});
