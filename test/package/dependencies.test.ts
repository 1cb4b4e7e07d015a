/**
 * The package's dependencies are exactly what its code loads: every runtime dependency is
 * imported by the shipped code, every package the shipped code imports is a dependency (or
 * one of the optional peers loaded on demand), and a run without --spawn never loads
 * testcontainers even where it is installed, as it is in this repository.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { CLI, REPO } from '../support/cli.js';
import { exec } from './exec.js';

interface PackageJson {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as PackageJson;

/** Dependencies the code does not import by name, each with the reason it is still needed. */
const NOT_IMPORTED: Record<string, string> = {
  vite: 'the peer dependency of vitest, pinned to the version that works on Node 20',
  postgres:
    'postgres.js, the driver the Node agent (drivers/agents/node/agent.mjs) imports by a computed name when asked for it',
};

/** Packages imported only dynamically, on request, and not installed with pooltest. */
const ON_DEMAND = new Set(['testcontainers', '@testcontainers/postgresql']);

/** Bare package names the shipped JavaScript imports (static or dynamic), comments excluded. */
function importedPackages(): Set<string> {
  const names = new Set<string>();
  // Every shipped folder (the layout moved audit/, cli/, runner/ and profiles/ to the top level).
  // drivers/agents ships as source: the Node agent imports the drivers it runs (pg, postgres).
  const roots = [
    ...[
      'engine',
      'reporters',
      'suites',
      'fixtures',
      'profiles',
      'runner',
      'common',
      'audit',
      'cli',
      'watch',
      'drivers',
    ].map((dir) => path.join(REPO, 'dist', dir)),
    path.join(REPO, 'drivers', 'agents'),
  ];
  for (const root of roots) {
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.m?js$/.test(f))) {
      for (const line of readFileSync(path.join(root, file), 'utf8').split('\n')) {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
        for (const m of line.matchAll(/(?:^\s*(?:import|export)\b[^'"]*from\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
          const spec = m[1]!;
          if (spec.startsWith('.') || spec.startsWith('node:')) continue;
          names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        }
      }
    }
  }
  return names;
}

describe('dependencies', () => {
  const imported = importedPackages();

  test('every runtime dependency is used by the shipped code', () => {
    const unused = Object.keys(pkg.dependencies).filter((d) => !imported.has(d) && !(d in NOT_IMPORTED));
    expect(unused).toEqual([]);
  });

  test('everything the shipped code imports is a dependency or an optional peer', () => {
    const undeclared = [...imported].filter((d) => !(d in pkg.dependencies) && !ON_DEMAND.has(d));
    expect(undeclared).toEqual([]);
    for (const name of ON_DEMAND) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      // Any 12.x has the API the fixtures use (Node 22 users may take the latest), but 12.0.2
      // and later crash at import on Node 20 (undici 8): development pins the one that works
      // there, and --spawn's message names it.
      expect(pkg.peerDependencies[name]).toBe('^12.0.1');
      expect(pkg.devDependencies[name]).toBe('12.0.1');
    }
  });

  describe('testcontainers is loaded only for --spawn', () => {
    let stack: Stack;
    let dir: string;
    beforeAll(async () => {
      stack = await startStack('pgbouncer-transaction');
      dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-trace-'));
    });
    afterAll(async () => {
      await stack?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const traced = async (
      args: string[],
      name: string,
    ): Promise<{ code: number | null; stderr: string; specifiers: string[] }> => {
      const log = path.join(dir, `${name}.log`);
      const register = path.join(REPO, 'test/package/fixtures/trace-register.mjs');
      const run = await exec(process.execPath, ['--import', register, CLI, ...args, '--no-store'], {
        cwd: dir,
        env: { POOLTEST_TRACE_FILE: log },
      });
      return { code: run.code, stderr: run.stderr, specifiers: readFileSync(log, 'utf8').split('\n') };
    };

    test('a run against a target never resolves it', async () => {
      const run = await traced(['--target', stack.target.url(), '--only', 'session/set-leak'], 'plain');
      expect(run.code, run.stderr).toBe(0);
      expect(run.specifiers).toContain('pg');
      expect(run.specifiers.filter((s) => s.includes('testcontainers'))).toEqual([]);
    });

    test('--spawn does load it (control: the trace sees it when it happens)', async () => {
      const run = await traced(['--spawn', 'pgbouncer'], 'spawn');
      expect(run.specifiers).toContain('testcontainers');
      // On a machine without a container engine this is the coded answer; with one, a run.
      if (run.code === 2) expect(run.stderr).toContain('pooltest: DOCKER_UNAVAILABLE:');
    });
  });
});
