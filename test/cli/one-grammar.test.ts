/**
 * One grammar for every command (issue 40): a new user's `pooltest drivers --target ... -U app
 * -d app` got `Unknown option '-U'` (its hint with an unbalanced quote), `audit --user` was
 * unknown while audit's AUTH_FAILED hint named it, `-h` was the help in drivers and the host in
 * the main command, `--json -` wrote a file named `-`, and the main help did not list drivers.
 * Each command here is held to the shared table (common/option-table.ts): the same words mean
 * the same endpoint (parsed, and named by the connection error against a closed port), an
 * unknown option is refused alike, `--json -` is standard output, and every --help is
 * generated from the table. No pooler is needed: a closed port answers at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AUDIT_GRAMMAR, parseAuditArgs } from '../../audit/audit-args.js';
import { parseCli } from '../../cli/args.js';
import { DIFF_GRAMMAR } from '../../cli/diff-command.js';
import { DRIVERS_GRAMMAR } from '../../cli/drivers-grammar.js';
import { MAIN_GRAMMAR, SUBCOMMANDS } from '../../cli/main-grammar.js';
import { MATRIX_GRAMMAR } from '../../cli/matrix-command.js';
import { parseCommand, type CommandGrammar } from '../../common/command-grammar.js';
import { SHARED_NAMES, SHARED_OPTIONS } from '../../common/option-table.js';
import { freePort } from '../../fixtures/free-port.js';
import { parseWatchArgs, WATCH_GRAMMAR } from '../../watch/watch-args.js';
import { CLI, REPO, runCli } from '../support/cli.js';
import { sampleFile } from '../reporters/samples.js';

/** Every command, with what it needs besides the words under test to get as far as connecting. */
const COMMANDS = ['', 'drivers', 'audit', 'watch', 'diff', 'matrix'] as const;
const CONNECTING = ['', 'drivers', 'audit', 'watch'] as const;

const argvOf = (command: string, args: string[]): string[] => (command === '' ? args : [command, ...args]);

let dir: string;
let sqlFile: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-grammar-'));
  sqlFile = path.join(dir, 'app.sql');
  // One statement that relies on session state: the audit has a check to run against --target.
  writeFileSync(sqlFile, 'SET search_path = app;\nSELECT 1;\n');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the connection words mean the same endpoint in every command', () => {
  const words = ['-h', 'db.example', '-p', '6433', '-U', 'app', '-d', 'appdb', '--password', 'pw', '--timeout', '3s'];
  const meaning = { host: 'db.example', port: 6433, user: 'app', database: 'appdb', password: 'pw', timeoutMs: 3000 };

  test('parsed: pooltest, drivers, audit and watch read -h -p -U -d --password --timeout alike', () => {
    expect(parseCli(words)).toMatchObject(meaning);
    expect(parseCommand(DRIVERS_GRAMMAR, words).shared).toMatchObject(meaning);
    expect(parseAuditArgs(words)).toMatchObject(meaning);
    const watch = parseWatchArgs(['--upstream', 'pg:5432', ...words]);
    const { timeoutMs: _bound, ...connection } = meaning;
    // Its --timeout bounds each connection (it was --connect-timeout, still taken).
    expect(watch).toMatchObject({ ...connection, connectTimeoutMs: 3000 });
  });

  test('the long names and their psql aliases too, and -d with a URL is the whole connection string', () => {
    const long = ['--host', 'h', '--port', '1', '--username', 'u', '--dbname', 'x'];
    for (const parse of [
      parseCli,
      (a: string[]) => parseAuditArgs(a),
      (a: string[]) => parseWatchArgs(['--upstream', 'pg', ...a]),
    ])
      expect(parse(long)).toMatchObject({ host: 'h', port: 1, user: 'u', database: 'x' });
    for (const grammar of [MAIN_GRAMMAR, DRIVERS_GRAMMAR])
      expect(parseCommand(grammar, ['-d', 'postgres://u@h:1/x']).shared).toMatchObject({
        target: 'postgres://u@h:1/x',
      });
    expect(parseAuditArgs(['-d', 'postgres://u@h:1/x']).target).toBe('postgres://u@h:1/x');
  });

  // The error of a closed port names the endpoint connected to: the user -U gave, the database
  // -d gave, the port -p gave. Before, drivers refused -U, and audit refused --user.
  test.each(CONNECTING)('connected: pooltest %s names app@127.0.0.1:PORT/appdb', async (command) => {
    const port = await freePort();
    const conn = ['-h', '127.0.0.1', '-p', String(port), '-U', 'app', '-d', 'appdb', '--timeout', '2s'];
    let upstream: net.Server | null = null;
    let args: string[];
    if (command === 'audit') args = ['--sql', sqlFile, ...conn];
    else if (command === 'watch') {
      // The watch checks its upstream first: one that accepts, so that the target is next.
      upstream = await acceptingUpstream();
      args = ['--upstream', upstreamUrl(upstream), ...conn, '--', process.execPath, '-e', '0'];
    } else args = [...conn, '--no-store'];
    try {
      const run = await runCli(argvOf(command, args), { timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`TARGET_REFUSED: .*app@127\\.0\\.0\\.1:${port}/appdb`));
    } finally {
      upstream?.close();
    }
  });

  test('control: -U with no pooler named is refused in audit and watch, not ignored', () => {
    expect(() => parseAuditArgs(['--sql', 'x.sql', '-U', 'app'])).toThrow(/-U\/--user refines the pooler/);
    expect(() => parseWatchArgs(['--upstream', 'pg', '-U', 'app'])).toThrow(/-U\/--user refines the pooler/);
  });

  test('-h is the host in every command that connects, and not help; -? and --help are help', () => {
    for (const grammar of [MAIN_GRAMMAR, DRIVERS_GRAMMAR]) {
      expect(parseCommand(grammar, ['-h', 'db']).shared).toMatchObject({ host: 'db', help: false });
      expect(() => parseCommand(grammar, ['-h'])).toThrow(/-h needs a value \(as in psql, -h is the host/);
    }
    expect(parseAuditArgs(['-h', 'db']).host).toBe('db');
    expect(parseWatchArgs(['--upstream', 'pg', '-h', 'db']).host).toBe('db');
    for (const grammar of [MAIN_GRAMMAR, DRIVERS_GRAMMAR, DIFF_GRAMMAR, MATRIX_GRAMMAR])
      for (const flag of ['-?', '--help']) expect(parseCommand(grammar, [flag]).shared.help).toBe(true);
    expect(() => parseCommand(DIFF_GRAMMAR, ['-h', 'db'])).toThrow(/^-h does not apply to pooltest diff/);
  });
});

describe('an unknown option is refused the same way by every command', () => {
  test('same code, same words, balanced quotes, the nearest known option', async () => {
    const runs = await Promise.all(COMMANDS.map((c) => runCli(argvOf(c, ['--no-such-option', 'x']))));
    const typo = await Promise.all(CONNECTING.map((c) => runCli(argvOf(c, ['--tagret', 'x']))));
    for (const [i, command] of COMMANDS.entries()) {
      const where = command === '' ? 'pooltest' : `pooltest ${command}`;
      const r = runs[i]!;
      expect(r.code, where).toBe(2);
      // The prefix is each command's own (another branch owns it); the rest is one sentence.
      const line = r.stderr.trim().replace(/^pooltest( \w+)?: /, '');
      expect(line).toBe(`BAD_ARGUMENTS: unknown option --no-such-option (see ${where} --help)`);
      expect((r.stderr.match(/'/g) ?? []).length % 2, where).toBe(0);
    }
    for (const [i, command] of CONNECTING.entries())
      expect(typo[i]!.stderr).toContain(
        `BAD_ARGUMENTS: unknown option --tagret; did you mean --target? (see ${command === '' ? 'pooltest' : `pooltest ${command}`} --help)`,
      );
  });

  test("control: the table's words a command has no use for are named as such, not as unknown", () => {
    expect(() => parseCommand(DIFF_GRAMMAR, ['--target', 'x'])).toThrow(/^--target does not apply to pooltest diff/);
    expect(() => parseAuditArgs(['--junit', 'x.xml'])).toThrow(/^--junit does not apply to pooltest audit/);
    // Accepted everywhere they apply: the same line serves every connecting command.
    for (const grammar of [MAIN_GRAMMAR, DRIVERS_GRAMMAR])
      expect(() => parseCommand(grammar, ['--no-store', '-q', '--no-color', '-V'])).not.toThrow();
  });
});

describe('--json - is standard output wherever it is taken', () => {
  test('pooltest --list, diff, matrix and audit print the JSON alone on stdout, the view on stderr', async () => {
    const [old, neu] = [sampleFile('direct'), sampleFile('pgbouncer-transaction')];
    const runs = await Promise.all(
      [
        ['--list', '--json', '-'],
        ['diff', old, neu, '--json', '-'],
        ['matrix', old, neu, '--json', '-'],
        ['audit', '--sql', sqlFile, '--json', '-'],
      ].map((args) => runCli(args, { cwd: dir })),
    );
    for (const r of runs) {
      expect(() => JSON.parse(r.stdout) as unknown, r.stderr).not.toThrow();
      expect(r.stdout.trim().startsWith('{') || r.stdout.trim().startsWith('['), r.stdout.slice(0, 80)).toBe(true);
    }
    // The terminal views went to stderr rather than being lost.
    expect(runs[1]!.stderr).toMatch(/breaks|fixed|same/);
    expect(runs[3]!.stderr).toMatch(/search_path/);
    // No file named "-" where they ran (the old behaviour).
    expect(existsSync(path.join(dir, '-'))).toBe(false);
  });

  test('watch without a command writes its JSON to stdout when Ctrl-C ends it', async () => {
    const upstream = await acceptingUpstream();
    const child = spawn(process.execPath, [CLI, 'watch', '--upstream', upstreamUrl(upstream), '--json', '-'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Once: a second SIGINT would find no handler left and end the process by the signal.
      if (!interrupted && /Ctrl-C ends the watch/.test(stderr)) interrupted = child.kill('SIGINT');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    upstream.close();
    expect(code, stderr).toBe(0);
    expect((JSON.parse(stdout) as { summary?: unknown }).summary).toBeDefined();
  });

  test('controls: two outputs on stdout, and watch with a command (whose output goes there), are refused', () => {
    expect(() => parseCli(['--json', '-', '--junit', '-'])).toThrow(
      /--json - and --junit - both write to standard output/,
    );
    expect(() => parseWatchArgs(['--upstream', 'pg', '--json', '-', '--', 'npm', 'test'])).toThrow(
      /--json -: standard output is the command's own/,
    );
  });
});

describe('every --help is generated from the table', () => {
  test("each command's help names each shared option, as taken or as not taken", async () => {
    const helps = await Promise.all(COMMANDS.map((c) => runCli(argvOf(c, ['--help']))));
    for (const [i, command] of COMMANDS.entries()) {
      const help = helps[i]!;
      expect(help.code, command).toBe(0);
      const grammar = grammarOf(command);
      for (const name of SHARED_NAMES) {
        expect(help.stdout, `${command} --help: --${name}`).toContain(`--${name}`);
        const short = SHARED_OPTIONS[name].short;
        if (short && Object.hasOwn(grammar.shared, name))
          expect(help.stdout, `${command} --help: -${short}`).toContain(`-${short}, --${name}`);
      }
      // Every option the parser takes is in the help, under the name it takes.
      for (const name of Object.keys(grammar.own)) expect(help.stdout, `${command}: --${name}`).toContain(`--${name}`);
    }
  });

  test('the main help lists every subcommand the entry point dispatches', async () => {
    const source = readFileSync(path.join(REPO, 'cli/command.ts'), 'utf8');
    const dispatched = [...source.matchAll(/argv\[0\] === '([a-z]+)'/g)].map((m) => m[1]!);
    expect(dispatched.length).toBeGreaterThanOrEqual(5);
    expect(SUBCOMMANDS.map((s) => s.name).sort()).toEqual([...new Set(dispatched)].sort());
    const help = await runCli(['--help']);
    for (const name of dispatched) expect(help.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  test("drivers --profile says which profiles it has expectations for, naming the checks' others", async () => {
    expect(DRIVERS_GRAMMAR.shared.profile).toMatch(/direct or pgbouncer-transaction only/);
    const r = await runCli(['drivers', '--profile', 'pgpool', '--target', '127.0.0.1:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /BAD_ARGUMENTS: --profile pgpool: pooltest drivers has expected outcomes for direct and pgbouncer-transaction only/,
    );
  });
});

/**
 * A TCP server that accepts and holds its connections: all the watch asks of its upstream
 * before it starts, with TLS turned off in the URL. Closing it ends them too.
 */
async function acceptingUpstream(): Promise<net.Server> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  const close = server.close.bind(server);
  server.close = (cb) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function upstreamUrl(server: net.Server): string {
  return `postgres://app@127.0.0.1:${(server.address() as net.AddressInfo).port}/appdb?sslmode=disable`;
}

function grammarOf(command: (typeof COMMANDS)[number]): CommandGrammar {
  switch (command) {
    case '':
      return MAIN_GRAMMAR;
    case 'drivers':
      return DRIVERS_GRAMMAR;
    case 'diff':
      return DIFF_GRAMMAR;
    case 'matrix':
      return MATRIX_GRAMMAR;
    case 'audit':
      return AUDIT_GRAMMAR;
    case 'watch':
      return WATCH_GRAMMAR;
  }
}
