/**
 * Agents compiled once, ahead of need: pgjdbc's (javac) and pgx's (go build). A drivers run
 * starts each agent twice per configuration, and compiling at every start costs seconds (ten or
 * more on a loaded machine). So the agent is built once into a cache folder named after its
 * source's hash and the build's inputs (`$TMPDIR/pooltest-<kind>-agent-<hash>`), never in the
 * repository, and agents start from the build.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AgentBuild {
  /** Names the cache folder: `jdbc` gives `pooltest-jdbc-agent-<hash>`. */
  kind: string;
  source: string;
  /** The file the build leaves in its folder (`Agent.class`, `agent`). */
  artefact: string;
  /** What else the build depends on (a library's version), hashed with the source. */
  inputs?: string;
  /** The compiler's command line, writing into `out`. */
  compile(out: string): { cmd: string; args: string[]; env?: NodeJS.ProcessEnv };
}

/** The folder holding the build of this source, or null when it has not been built. */
export function builtAgentDir(build: AgentBuild): string | null {
  if (!existsSync(build.source)) return null;
  const dir = cacheDir(build);
  return existsSync(join(dir, build.artefact)) ? dir : null;
}

function cacheDir(build: AgentBuild): string {
  const hash = createHash('sha256')
    .update(readFileSync(build.source))
    .update(build.inputs ?? '')
    .digest('hex')
    .slice(0, 12);
  return join(tmpdir(), `pooltest-${build.kind}-agent-${hash}`);
}

/**
 * Builds the agent into its cache folder, bounded; resolves to null when the build is there,
 * else to the compiler's first lines of complaint (the reason the driver is skipped).
 */
export async function buildAgent(build: AgentBuild, boundMs: number): Promise<string | null> {
  if (!existsSync(build.source)) return `the agent's source ${build.source} is missing`;
  if (builtAgentDir(build) !== null) return null;
  const dir = cacheDir(build);
  // Built in a private folder and renamed into place: two runs at once cannot see half a build.
  const work = mkdtempSync(`${dir}-work-`);
  const { cmd, args, env } = build.compile(work);
  const failure = await new Promise<string | null>((resolve) => {
    execFile(cmd, args, { timeout: boundMs, killSignal: 'SIGKILL', env }, (err, _out, stderr) => {
      if (err === null) resolve(null);
      else if (err.killed) resolve(`${cmd} did not finish within ${boundMs} ms`);
      else resolve(`${cmd} failed: ${(stderr.trim() || err.message).split('\n').slice(0, 3).join(' / ')}`);
    });
  });
  try {
    if (failure === null && !existsSync(dir)) renameSync(work, dir);
  } catch {
    // Another run renamed its build first: theirs is as good.
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return failure;
}
