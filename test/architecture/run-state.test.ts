/**
 * Run state lives in one object per run per process, a RunState (engine/context/run-state.ts), which
 * the engine is handed as a field of the run context (`ctx.state`); engine/ keeps no run state
 * at module level. Where a table of runs is needed (a Vitest worker's check files share one
 * state per run), it lives in runner/ (runner/worker-run-states.ts).
 *
 * Found at module level in engine/, outside functions: a `let`/`var`; a Map, Set, WeakMap,
 * WeakSet or Array built empty, an empty `[]` or `{}` (something filled at run time), also
 * inside a constant object or array; a class's static field that is not a readonly constant.
 * Each fails here unless allowed below with the reason it holds no run state. Collections built
 * from a literal list are constants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { REPO } from '../support/cli.js';
import { runContext, runData, RunState } from '../../engine/context/run-state.js';
import { closeSpares, SPARES, type Spares } from '../../engine/steering/spare-session.js';
import type { RunData } from '../../engine/steering/scenario.js';
import { workerRunState } from '../../runner/worker-run-states.js';

/** file: name -> why it is not run state. */
const ALLOWED: Record<string, Record<string, string>> = {
  'engine/wire/pg-guard.ts': { guarded: 'per pg.Client, weakly: dies with the client, whatever run opened it' },
};

const EMPTY_COLLECTION = /^(Map|Set|WeakMap|WeakSet|Array)$/;

/** Whether `init` is, or holds outside any function, a container built empty. */
function holdsEmptyContainer(init: ts.Expression, file: ts.SourceFile): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found || ts.isFunctionLike(n) || ts.isClassLike(n)) return;
    if (ts.isNewExpression(n) && EMPTY_COLLECTION.test(n.expression.getText(file)) && (n.arguments?.length ?? 0) === 0)
      found = true;
    else if (ts.isArrayLiteralExpression(n) && n.elements.length === 0) found = true;
    else if (ts.isObjectLiteralExpression(n) && n.properties.length === 0) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(init);
  return found;
}

/** The module-level bindings of `source` that can hold mutable state, by name (`Class.field` for statics). */
export function mutableModuleState(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const stmt of file.statements) {
    if (ts.isClassDeclaration(stmt)) {
      for (const m of stmt.members) {
        if (!ts.isPropertyDeclaration(m) || !m.modifiers?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword)) continue;
        const readonly = m.modifiers.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (!readonly || (m.initializer && holdsEmptyContainer(m.initializer, file)))
          found.push(`${stmt.name?.getText(file) ?? '(class)'}.${m.name.getText(file)}`);
      }
      continue;
    }
    if (!ts.isVariableStatement(stmt)) continue;
    const isConst = (stmt.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of stmt.declarationList.declarations) {
      if (!isConst || (d.initializer && holdsEmptyContainer(d.initializer, file))) found.push(d.name.getText(file));
    }
  }
  return found;
}

/** `file: name` for every finding in `files` that ALLOWED does not excuse. */
function offenders(files: ReadonlyArray<{ file: string; source: string }>): string[] {
  return files.flatMap(({ file, source }) =>
    mutableModuleState(source)
      .filter((name) => !ALLOWED[file]?.[name])
      .map((name) => `${file}: ${name}`),
  );
}

function engineFiles(dir = path.join(REPO, 'engine')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return engineFiles(full);
    return e.name.endsWith('.ts') ? [path.relative(REPO, full)] : [];
  });
}

test('engine/ keeps no run state at module level', () => {
  const files = engineFiles().map((file) => ({ file, source: readFileSync(path.join(REPO, file), 'utf8') }));
  expect(files.length).toBeGreaterThan(50);
  expect(offenders(files)).toEqual([]);
});

test('every allowed binding still exists (the list cannot keep stale entries)', () => {
  for (const [file, names] of Object.entries(ALLOWED)) {
    const found = mutableModuleState(readFileSync(path.join(REPO, file), 'utf8'));
    for (const name of Object.keys(names)) expect(found, `${file}: ${name}`).toContain(name);
  }
});

test('control: the registry engine/context/run-state.ts used to keep, and the TLS file cache, are found', () => {
  // Verbatim from before run state moved into the context: the scan must refuse both again.
  const registry = [
    "import type { Spares } from './steering/spare-session.js';",
    'export class RunState { readonly spares = new Map<string, Spares>(); }',
    '/** The one registry: see the file comment for why it is keyed by run id. */',
    'const runs = new Map<string, RunState>();',
    'export function runState(ctx: { readonly runId: string }): RunState {',
    '  let state = runs.get(ctx.runId);',
    '  if (!state) { state = new RunState(); runs.set(ctx.runId, state); }',
    '  return state;',
    '}',
  ].join('\n');
  const tlsCache = 'const cache = new Map<string, Buffer>();';
  expect(
    offenders([
      { file: 'engine/context/run-state.ts', source: registry },
      { file: 'engine/target/tls-files.ts', source: tlsCache },
    ]),
  ).toEqual(['engine/context/run-state.ts: runs', 'engine/target/tls-files.ts: cache']);
});

test('control: collections, arrays, lets and statics are found, in disguise too; constants are not', () => {
  const source = [
    'const refused = new Set<string>();',
    'export const byRun = new Map<string, number>();',
    'let counter = 0;',
    'const pending: Promise<void>[] = [];',
    'const seen = new Array<string>();',
    'const byId: Record<string, number> = {};',
    'const registry = { runs: new Map<string, object>(), max: 3 };',
    'const tables = [new WeakMap<object, number>()];',
    'class Runs { static all = new Map<string, object>(); static readonly LIMIT = 3; static readonly list: string[] = []; }',
    'class Counter { static n = 0; }',
    "const KNOWN = new Set(['a', 'b']);",
    "const ORDER = ['x', 'y'];",
    'const LIMIT = 3;',
    "const TABLE = { a: 1, b: [1, 2], c: new Map([['k', 1]]) };",
    'const make = () => new Map<string, number>();',
    'function f() { const inner = new Map(); return inner; }',
  ].join('\n');
  expect(mutableModuleState(source)).toEqual([
    'refused',
    'byRun',
    'counter',
    'pending',
    'seen',
    'byId',
    'registry',
    'tables',
    'Runs.all',
    'Runs.list',
    'Counter.n',
  ]);
});

describe('the run context carries its state', () => {
  const data: RunData = {
    target: { host: 'db', port: 6432, user: 'u', password: undefined, database: 'd', sslmode: 'disable' },
    direct: null,
    discovery: {} as RunData['discovery'],
    runId: 'feedface',
    bounds: { connectMs: 100, stepMs: 100 },
  };
  // Stand-ins that only count close(): this is about which run's spares are closed, not how.
  const spare = (closed: string[], name: string): Spares =>
    ({ close: async () => void closed.push(name) }) as unknown as Spares;

  test('runContext makes a new state unless it is given one; the data is shared, not copied', () => {
    const a = runContext(data);
    const b = runContext(data);
    expect(a.state).toBeInstanceOf(RunState);
    expect(b.state).not.toBe(a.state);
    const shared = new RunState();
    expect(runContext(data, shared).state).toBe(shared);
    expect(runContext(data, shared).discovery).toBe(data.discovery);
  });

  test("two contexts of the same run id keep apart: closing one's spares leaves the other's open", async () => {
    const closed: string[] = [];
    const a = runContext(data);
    const b = runContext(data);
    a.state.part(SPARES).set('db:6432|d|u', spare(closed, 'a'));
    b.state.part(SPARES).set('db:6432|d|u', spare(closed, 'b'));
    await closeSpares(a.state);
    expect(closed).toEqual(['a']);
    // The control: closing the other's is seen too, so the first assertion could fail.
    await closeSpares(b.state);
    expect(closed).toEqual(['a', 'b']);
  });

  test('only the data crosses a process boundary: with live spares the whole context cannot be cloned', () => {
    const ctx = runContext(data);
    ctx.state.part(SPARES).set('db:6432|d|u', { pending: [Promise.resolve(null)] } as unknown as Spares);
    expect(() => structuredClone(ctx)).toThrow(/could not be cloned/);
    const sent = structuredClone(runData(ctx));
    expect(sent).toEqual(data);
    expect('state' in sent).toBe(false);
  });

  test("a Vitest worker keeps one state per run for all the run's check files (runner/worker-run-states.ts)", () => {
    const first = workerRunState({ runId: 'run-state-test-1' });
    expect(workerRunState({ runId: 'run-state-test-1' })).toBe(first);
    expect(workerRunState({ runId: 'run-state-test-2' })).not.toBe(first);
  });
});
