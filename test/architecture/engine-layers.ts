/**
 * engine/'s inner layers as data, and the checker that holds the code to them: a pure function
 * of an import graph, so that its controls can feed it a graph that breaks the rules.
 *
 *   execute ─> sweep ─> discovery ─┬─> judging ──────────────────────────────> record
 *                                  └─> steering ─> session ─> wire ──────────> record
 *                                         └──────> context ─> target ────────> record
 *
 * record (bottom): what a step records, the tags and markers it carries, the run facts, the
 * shared vocabulary of types, errors and time bounds. target: where the run connects.
 * context: the run's data and live state (RunData, RunContext, RunState). wire and session: the
 * protocol and one client connection. steering: scenarios over sessions. judging: pure
 * functions of a record, which import nothing that does I/O. discovery, sweep and execute:
 * what the engine does with all of them, before, after and around each check.
 */
import path from 'node:path';

/** What each folder of engine/ may import from, besides itself. */
export const ENGINE_LAYERS: Readonly<Record<string, readonly string[]>> = {
  record: [],
  target: ['record'],
  context: ['record', 'target'],
  wire: ['record'],
  session: ['record', 'target', 'wire'],
  steering: ['record', 'target', 'context', 'wire', 'session'],
  judging: ['record'],
  discovery: ['record', 'target', 'context', 'wire', 'session', 'steering', 'judging'],
  sweep: ['record', 'target', 'context', 'wire', 'session', 'steering', 'judging', 'discovery'],
  execute: ['record', 'target', 'context', 'wire', 'session', 'steering', 'judging', 'discovery', 'sweep'],
};

/** Rules of `layers` that name a layer listed after their own (the order is bottom to top). */
export function upwardRules(layers: Readonly<Record<string, readonly string[]>>): string[] {
  const order = Object.keys(layers);
  return order.flatMap((layer, i) =>
    layers[layer]!.filter((used) => !order.slice(0, i).includes(used)).map((used) => `${layer} -> ${used}`),
  );
}

/**
 * engine/'s files outside every folder, and their layer: types.ts re-exports record/'s types
 * for the rest of the product, and holds the profile types, which are being reworked apart.
 */
export const ENGINE_TOP_FILES: Readonly<Record<string, string>> = { 'types.ts': 'record' };

/** Files inside engine/ (relative to it, `/`-separated) and the engine files each imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The layer of an engine file (relative to engine/), or null when it is in none. */
export function engineLayerOf(file: string, layers = ENGINE_LAYERS, top = ENGINE_TOP_FILES): string | null {
  const parts = file.split('/');
  if (parts.length === 1) return top[file] ?? null;
  return Object.hasOwn(layers, parts[0]!) ? parts[0]! : null;
}

function mayImport(allowed: readonly string[]): string {
  return allowed.length > 0 ? `may import only ${allowed.join(', ')}` : 'may import nothing outside itself';
}

/** Every import of `graph` that leaves its layer for one it may not use, or for no layer, one line each. */
export function climbingImports(graph: ImportGraph, layers = ENGINE_LAYERS, top = ENGINE_TOP_FILES): string[] {
  const bad: string[] = [];
  for (const [file, imports] of graph) {
    const from = engineLayerOf(file, layers, top);
    if (from === null) {
      bad.push(`engine/${file} is in no layer: put it in the folder of its layer (ENGINE_LAYERS)`);
      continue;
    }
    for (const to of imports) {
      const into = engineLayerOf(to, layers, top);
      if (into === null) bad.push(`engine/${file} imports engine/${to}, which is in no layer`);
      else if (into !== from && !layers[from]!.includes(into))
        bad.push(`engine/${file} imports engine/${to}: ${from}/ ${mayImport(layers[from]!)}`);
    }
  }
  return bad;
}

/**
 * The import cycles of `graph`: each strongly connected set of files (Tarjan), named in sorted
 * order, and a file that imports itself.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * The engine-internal import graph of `files` (absolute paths under `engineDir`, with their
 * relative import specifiers): imports leaving engine/ are the top-level rule's business.
 */
export function engineGraph(engineDir: string, files: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, specs] of files) {
    const rel = path.relative(engineDir, file).split(path.sep).join('/');
    const inside = specs
      .map((s) =>
        path
          .relative(engineDir, path.resolve(path.dirname(file), s))
          .split(path.sep)
          .join('/'),
      )
      .filter((to) => !to.startsWith('..'))
      .map((to) => to.replace(/\.js$/, '.ts'));
    graph.set(rel, [...new Set(inside)]);
  }
  return graph;
}
