/**
 * The pgjdbc agent compiled once, ahead of need. The JDK's single-file source launcher compiles
 * Agent.java in memory at every start (a second or more; ten on a loaded machine), and a drivers
 * run starts the agent twice per configuration. So `javac` compiles it once into a cache folder
 * named after the source's hash (`$TMPDIR/pooltest-jdbc-agent-<hash>`), and the agents start
 * from the classes; without javac, or when it fails, the source launcher is used as before.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder holding Agent.class for this source, or null when it has not been compiled. */
export function compiledAgentDir(source: string): string | null {
  const dir = cacheDir(source);
  return existsSync(join(dir, 'Agent.class')) ? dir : null;
}

function cacheDir(source: string): string {
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 12);
  return join(tmpdir(), `pooltest-jdbc-agent-${hash}`);
}

/** Compiles the agent into its cache folder (bounded); resolves either way. */
export async function compileJavaAgent(source: string, jar: string, boundMs = 60_000): Promise<void> {
  if (!existsSync(source) || compiledAgentDir(source) !== null) return;
  const dir = cacheDir(source);
  // Compiled into a private folder and renamed into place: two runs at once cannot see half a build.
  const work = mkdtempSync(`${dir}-work-`);
  const ok = await new Promise<boolean>((resolve) => {
    execFile('javac', ['-d', work, '-cp', jar, source], { timeout: boundMs, killSignal: 'SIGKILL' }, (err) =>
      resolve(err === null),
    );
  });
  try {
    if (ok && !existsSync(dir)) renameSync(work, dir);
  } catch {
    // Another run renamed its build first: theirs is as good.
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
