/**
 * libpq's password file (~/.pgpass, PGPASSFILE) as the last source of a password, read once per
 * target so that every connection of a run uses it. Without a server: the lookup's rules. With
 * one (real PostgreSQL, SCRAM over TCP): a run whose URL has no password logs in from the file;
 * control: the same run without the file is AUTH_FAILED, and with the file readable by others
 * it is ignored with a warning.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { passwordFromFile } from '../../engine/target/pass-file.js';
import { resolveRelated, resolveTarget } from '../../engine/target/target.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
/** A home directory whose .pgpass holds `lines`, with `mode`. */
function home(lines: string[], mode = 0o600): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-pgpass-'));
  dirs.push(dir);
  const file = path.join(dir, '.pgpass');
  writeFileSync(file, `${lines.join('\n')}\n`);
  chmodSync(file, mode);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the lookup, as libpq does it', () => {
  const q = { host: 'db.internal', port: 6432, database: 'app', user: 'web' };
  const none = (): never => {
    throw new Error('no warning expected');
  };

  test('the first matching line wins; * matches any field; comments and other lines are skipped', () => {
    const env = {
      HOME: home([
        '# a comment:6432:app:web:not-this',
        'other.host:6432:app:web:wrong-host',
        'db.internal:5432:app:web:wrong-port',
        'db.internal:6432:*:web:first',
        '*:*:*:*:last',
      ]),
    };
    expect(passwordFromFile(q, env, none)?.password).toBe('first');
    expect(passwordFromFile({ ...q, user: 'admin' }, env, none)?.password).toBe('last');
  });

  test('an escaped colon or backslash belongs to the password; no matching line is no password', () => {
    const env = { HOME: home(['db.internal:6432:app:web:pa\\:ss\\\\word']) };
    expect(passwordFromFile(q, env, none)?.password).toBe('pa:ss\\word');
    expect(passwordFromFile({ ...q, database: 'other' }, env, none)).toBeUndefined();
  });

  test('localhost also stands for a Unix-socket connection', () => {
    const env = { HOME: home(['localhost:5432:app:web:over-the-socket']) };
    expect(passwordFromFile({ ...q, host: '/var/run/postgresql', port: 5432 }, env, none)?.password).toBe(
      'over-the-socket',
    );
  });

  test('PGPASSFILE names the file; no file at all is no password and no warning', () => {
    const dir = home(['*:*:*:*:from-pgpassfile']);
    expect(passwordFromFile(q, { PGPASSFILE: path.join(dir, '.pgpass'), HOME: '/nonexistent' }, none)?.password).toBe(
      'from-pgpassfile',
    );
    expect(passwordFromFile(q, { HOME: path.join(dir, 'missing') }, none)).toBeUndefined();
  });

  test('a file others can read is ignored, with a warning that names it and never the password', () => {
    const env = { HOME: home(['*:*:*:*:s3cret-in-file'], 0o644) };
    const warnings: string[] = [];
    expect(passwordFromFile(q, env, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/password file ".*\.pgpass" has group or world access: ignored/);
    expect(warnings[0]).not.toContain('s3cret-in-file');
  });

  test('resolveTarget reads it last: --password, the URL and PGPASSWORD win over it', () => {
    const env = { HOME: home(['*:*:*:*:from-file']) };
    const url = 'postgres://web@db.internal:6432/app';
    expect(resolveTarget({ target: url }, env)).toMatchObject({
      password: 'from-file',
      passFile: `${env.HOME}/.pgpass`,
    });
    expect(resolveTarget({ target: url, password: 'flag' }, env).password).toBe('flag');
    expect(resolveTarget({ target: 'postgres://web:in-url@db.internal:6432/app' }, env).password).toBe('in-url');
    expect(resolveTarget({ target: url }, { ...env, PGPASSWORD: 'env' }).password).toBe('env');
    expect(resolveTarget({ target: url }, { HOME: '/nonexistent' }).password).toBeUndefined();
  });

  test('--direct looks the file up for itself when the target took its password from it, else inherits', () => {
    const env = {
      HOME: home(['db.internal:6432:app:web:pooler-password', 'pg.internal:5432:app:web:server-password']),
    };
    const target = resolveTarget({ target: 'postgres://web@db.internal:6432/app' }, env);
    expect(resolveRelated('pg.internal:5432', target, env).password).toBe('server-password');
    // No line for it: the target's, as for any field --direct does not spell out.
    expect(resolveRelated('elsewhere:5432', target, env).password).toBe('pooler-password');
    // A password given for the target is inherited as before, the file not consulted.
    const given = resolveTarget({ target: 'postgres://web:typed@db.internal:6432/app' }, env);
    expect(resolveRelated('pg.internal:5432', given, env).password).toBe('typed');
  });
});

describe('a run that takes its password from the file (real PostgreSQL, SCRAM)', () => {
  let pg: PostgresFixture;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
  });
  const urlWithout = (): string => `postgres://${pg.user}@127.0.0.1:${pg.port}/${pg.database}`;
  const only = ['--only', 'session/set-leak', '--timeout', '5s'];

  test('the URL has no password, ~/.pgpass has its line: the run logs in, and the password is nowhere in the output', async () => {
    const dir = home([`127.0.0.1:${pg.port}:${pg.database}:${pg.user}:${pg.password}`]);
    const run = await runCli(['--target', urlWithout(), ...only], {
      json: true,
      env: { HOME: dir, PGPASSWORD: undefined, PGPASSFILE: undefined },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.checks.find((c) => c.id === 'session/set-leak')?.outcome, run.stderr).not.toBeNull();
    expect(run.stdout + run.stderr).not.toContain(pg.password);
  }, 90_000);

  test('control: without the file the same run is AUTH_FAILED; with the file readable by others it is ignored, saying so', async () => {
    const noFile = await runCli(['--target', urlWithout(), ...only], {
      env: { HOME: path.join(home([]), 'none'), PGPASSWORD: undefined, PGPASSFILE: undefined },
    });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/AUTH_FAILED: .*asks for a password and none was given/);
    const open = home([`127.0.0.1:${pg.port}:${pg.database}:${pg.user}:${pg.password}`], 0o644);
    const ignored = await runCli(['--target', urlWithout(), ...only], {
      env: { HOME: open, PGPASSWORD: undefined, PGPASSFILE: undefined },
    });
    expect(ignored.code).toBe(2);
    expect(ignored.stderr).toMatch(/password file ".*\.pgpass" has group or world access: ignored/);
    // Said once, by pooltest: pg's own lookup of the file (and its WARNING line) is not made.
    expect(ignored.stderr.match(/group or world access/g)).toHaveLength(1);
    expect(ignored.stderr).toMatch(/AUTH_FAILED/);
    expect(ignored.stderr).not.toContain(pg.password);
  }, 90_000);
});
