/**
 * Run state lives in one object per run (engine/run-state.ts), not in module-level collections
 * scattered over engine/: a module-level `let`/`var`, or a Map, Set, WeakMap or WeakSet built
 * empty at module level (something filled at run time), fails here unless it is allowed below
 * with the reason it holds no run state. Collections built from a literal list are constants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { REPO } from '../support/cli.js';

/** file: name -> why it is not run state (or why it is the one place run state lives). */
const ALLOWED: Record<string, Record<string, string>> = {
  'engine/run-state.ts': { runs: 'the one registry of run state, one RunState per run id (see its file comment)' },
  'engine/wire/pg-guard.ts': { guarded: 'per pg.Client, weakly: dies with the client, whatever run opened it' },
};

/** The module-level bindings of `source` that can hold mutable state, by name. */
export function mutableModuleState(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const stmt of file.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    const isConst = (stmt.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of stmt.declarationList.declarations) {
      const name = d.name.getText(file);
      if (!isConst) {
        found.push(name);
        continue;
      }
      const init = d.initializer;
      if (
        init &&
        ts.isNewExpression(init) &&
        /^(Map|Set|WeakMap|WeakSet)$/.test(init.expression.getText(file)) &&
        (init.arguments?.length ?? 0) === 0
      )
        found.push(name);
    }
  }
  return found;
}

function engineFiles(dir = path.join(REPO, 'engine')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return engineFiles(full);
    return e.name.endsWith('.ts') ? [path.relative(REPO, full)] : [];
  });
}

test('engine/ keeps no run state at module level outside engine/run-state.ts', () => {
  const offenders = engineFiles().flatMap((file) =>
    mutableModuleState(readFileSync(path.join(REPO, file), 'utf8'))
      .filter((name) => !ALLOWED[file]?.[name])
      .map((name) => `${file}: ${name}`),
  );
  expect(offenders).toEqual([]);
});

test('every allowed binding still exists (the list cannot keep stale entries)', () => {
  for (const [file, names] of Object.entries(ALLOWED)) {
    const found = mutableModuleState(readFileSync(path.join(REPO, file), 'utf8'));
    for (const name of Object.keys(names)) expect(found, `${file}: ${name}`).toContain(name);
  }
});

test('control: a module-level Map, Set or let is found; a constant table is not', () => {
  const source = [
    'const refused = new Set<string>();',
    'export const byRun = new Map<string, number>();',
    'let counter = 0;',
    "const KNOWN = new Set(['a', 'b']);",
    'const LIMIT = 3;',
    'function f() { const inner = new Map(); return inner; }',
  ].join('\n');
  expect(mutableModuleState(source)).toEqual(['refused', 'byRun', 'counter']);
});

test("a run's state is dropped when the run ends, and closing one run's spares leaves another run's open", async () => {
  const { forgetRun, runState, everyRunState } = await import('../../engine/run-state.js');
  const { closeSpares } = await import('../../engine/steering/spare-session.js');
  type SparesOf = ReturnType<typeof runState>['spares'] extends Map<string, infer S> ? S : never;
  const closed: string[] = [];
  // Stand-ins that only count close(): this test is about which run's are closed, not how.
  const spare = (name: string): SparesOf => ({ close: async () => void closed.push(name) }) as unknown as SparesOf;
  const a = runState({ runId: 'test-run-a' });
  const b = runState({ runId: 'test-run-b' });
  a.spares.set('target|u', spare('a'));
  b.spares.set('target|u', spare('b'));
  await closeSpares(a);
  expect(closed).toEqual(['a']);
  expect(forgetRun('test-run-a')).toBe(a);
  expect(everyRunState()).not.toContain(a);
  expect(runState({ runId: 'test-run-a' })).not.toBe(a);
  // The control: without a run named, every run's spares in the process are closed.
  await closeSpares();
  expect(closed.sort()).toEqual(['a', 'b']);
  forgetRun('test-run-a');
  forgetRun('test-run-b');
});
