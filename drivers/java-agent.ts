/**
 * The pgjdbc agent compiled once (agent-build.ts). The JDK's single-file source launcher
 * compiles Agent.java in memory at every start, so `javac` compiles it into
 * `$TMPDIR/pooltest-jdbc-agent-<hash>` and the agents start from the classes; without javac,
 * or when it fails, the source launcher is used as before.
 */
import { buildAgent, builtAgentDir, type AgentBuild } from './agent-build.js';

function javaBuild(source: string, jar: string): AgentBuild {
  return {
    kind: 'jdbc',
    source,
    artefact: 'Agent.class',
    compile: (out) => ({ cmd: 'javac', args: ['-d', out, '-cp', jar, source] }),
  };
}

/** The folder holding Agent.class for this source, or null when it has not been compiled. */
export function compiledAgentDir(source: string): string | null {
  // The classpath is no input of the cache folder's name: the jar is only read at compile time.
  return builtAgentDir(javaBuild(source, ''));
}

/** Compiles the agent into its cache folder (bounded); resolves either way. */
export async function compileJavaAgent(source: string, jar: string, boundMs = 60_000): Promise<void> {
  await buildAgent(javaBuild(source, jar), boundMs);
}
