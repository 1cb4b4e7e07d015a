/**
 * engine/'s inner layers (engine-layers.ts): no import climbs from a lower layer to one it may
 * not use, judging imports nothing that does I/O, and no import cycle remains inside engine/.
 * A violation names the files. The controls feed the checker graphs that break each rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO } from '../support/cli.js';
import {
  climbingImports,
  ENGINE_LAYERS,
  engineGraph,
  engineLayerOf,
  importCycles,
  type ImportGraph,
  upwardRules,
} from './engine-layers.js';
import { relativeImports, sourceFiles } from './import-scan.js';

const ENGINE = path.join(REPO, 'engine');

function realGraph(): Map<string, string[]> {
  const files = new Map(sourceFiles(ENGINE).map((f) => [f, relativeImports(readFileSync(f, 'utf8'))] as const));
  return engineGraph(ENGINE, files);
}

/** Where a layer's files do I/O: what judging, which must stay pure, may never import. */
const DOES_IO = ['target', 'context', 'wire', 'session', 'steering', 'discovery', 'sweep', 'execute'];

describe("engine's inner layers", () => {
  test('no import climbs to a layer it may not use, and every file is in a layer', () => {
    expect(climbingImports(realGraph())).toEqual([]);
  });

  test('no import cycle remains inside engine/', () => {
    expect(importCycles(realGraph())).toEqual([]);
  });

  test('the rules themselves point down: a layer may use only layers listed before it', () => {
    expect(upwardRules(ENGINE_LAYERS)).toEqual([]);
    // Control: a rule naming a layer listed after it is reported.
    expect(upwardRules({ record: [], steering: ['record', 'judging'], judging: ['record'] })).toEqual([
      'steering -> judging',
    ]);
  });

  test('judging may use only record/: it imports nothing that does I/O', () => {
    expect(ENGINE_LAYERS.judging!.filter((l) => DOES_IO.includes(l))).toEqual([]);
    expect(ENGINE_LAYERS.record).toEqual([]);
  });

  test('the scan sees the real graph: a steering file is found with its imports of session/', () => {
    const graph = realGraph();
    expect(graph.get('steering/scenario.ts')).toContain('session/session.ts');
    expect(engineLayerOf('steering/scenario.ts')).toBe('steering');
    expect(engineLayerOf('types.ts')).toBe('record');
  });

  test('control: an import from judging into steering is reported, naming both files', () => {
    const graph: ImportGraph = new Map([
      ['judging/vetoes.ts', ['record/tags.ts', 'steering/other-runs.ts']],
      ['steering/other-runs.ts', ['session/session.ts']],
      ['session/session.ts', []],
      ['record/tags.ts', []],
    ]);
    expect(climbingImports(graph)).toEqual([
      'engine/judging/vetoes.ts imports engine/steering/other-runs.ts: judging/ may import only record',
    ]);
  });

  test('control: a file outside every layer, and an import of one, are reported', () => {
    const graph: ImportGraph = new Map([
      ['stray.ts', []],
      ['steering/x.ts', ['stray.ts']],
    ]);
    expect(climbingImports(graph)).toEqual([
      'engine/stray.ts is in no layer: put it in the folder of its layer (ENGINE_LAYERS)',
      'engine/steering/x.ts imports engine/stray.ts, which is in no layer',
    ]);
  });

  test('control: a cycle is reported with every file in it, even when each import points down', () => {
    const graph: ImportGraph = new Map([
      ['steering/scenario.ts', ['context/run-state.ts', 'session/session.ts']],
      ['context/run-state.ts', ['steering/scenario.ts']],
      ['session/session.ts', ['session/session.ts']],
      ['record/errors.ts', []],
    ]);
    expect(importCycles(graph)).toEqual([['session/session.ts'], ['context/run-state.ts', 'steering/scenario.ts']]);
    expect(
      importCycles(
        new Map([
          ['record/a.ts', ['record/b.ts']],
          ['record/b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
