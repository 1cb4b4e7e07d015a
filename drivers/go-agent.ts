/**
 * The pgx agent (agents/go/agent.go), built once per source and pgx version with Debian's Go,
 * offline: GOPATH is Debian's Go sources (golang-github-jackc-pgx-v4-dev puts pgx v4 and its
 * dependencies there) and modules are off, so no network is needed. The Go build cache goes to
 * a per-user temp folder, not $HOME. pgx's version comes from the Debian package (the import
 * path says only v4) and is compiled into the agent, which reports it in its hello.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { buildAgent, builtAgentDir, type AgentBuild } from './agent-build.js';
import type { AgentCommand } from './catalogue.js';

/** Where Debian puts Go library sources. */
export const DEBIAN_GOPATH = '/usr/share/gocode';
const PGX_PACKAGE = 'golang-github-jackc-pgx-v4-dev';

let pgxVersion: string | null | undefined;
/** The installed pgx v4's upstream version (`4.15.0` of Debian's `4.15.0-4`), or null. */
function installedPgx(): string | null {
  if (pgxVersion === undefined) {
    try {
      const v = execFileSync('dpkg-query', ['-W', '-f=${Version}', PGX_PACKAGE], { timeout: 10_000 }).toString();
      pgxVersion = /^(?:\d+:)?([0-9][^-]*)/.exec(v.trim())?.[1] ?? null;
    } catch {
      pgxVersion = null;
    }
  }
  return pgxVersion;
}

function goBuild(source: string): AgentBuild {
  const version = installedPgx() ?? '4';
  return {
    kind: 'pgx',
    source,
    artefact: 'agent',
    inputs: version,
    compile: (out) => ({
      cmd: 'go',
      args: ['build', '-ldflags', `-X main.pgxVersion=${version}`, '-o', join(out, 'agent'), source],
      env: {
        ...process.env,
        GOPATH: DEBIAN_GOPATH,
        GO111MODULE: 'off',
        GOFLAGS: '',
        GOCACHE: join(tmpdir(), `pooltest-go-cache-${userInfo().uid}`),
      },
    }),
  };
}

/** Why the last build of each source failed, said by the command that stands in for the agent. */
const buildFailures = new Map<string, string>();

/** Builds the agent (bounded: pgx and its dependencies take some 20 s the first time). */
export async function buildGoAgent(source: string, boundMs = 180_000): Promise<void> {
  const failure = await buildAgent(goBuild(source), boundMs);
  if (failure === null) buildFailures.delete(source);
  else
    buildFailures.set(
      source,
      installedPgx() === null ? `pgx v4 is not installed (Debian ${PGX_PACKAGE}): ${failure}` : failure,
    );
}

/**
 * The built agent; or, before a successful build, a stand-in that answers the hello with the
 * build's failure, so the driver is skipped with that reason (AgentProcess.start).
 */
export function goAgentCommand(source: string): AgentCommand {
  const dir = builtAgentDir(goBuild(source));
  if (dir !== null) return { cmd: join(dir, 'agent'), args: [] };
  const hello = {
    ok: false,
    error: { type: 'BuildFailed', message: buildFailures.get(source) ?? 'the pgx agent has not been built (go build)' },
  };
  return { cmd: process.execPath, args: ['-e', `console.log(${JSON.stringify(JSON.stringify(hello))})`] };
}
