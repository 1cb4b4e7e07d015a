/**
 * The network conditions the benchmark measures under: loopback straight to the fixture, and
 * the same fixture behind fault proxies that delay every chunk each way (a pooler in another
 * availability zone). The direct PostgreSQL gets its own proxy, since a remote pooler's server
 * is just as far away.
 */
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import type { Stack } from '../../fixtures/stack.js';

export interface Condition {
  name: string;
  /** Delay per chunk each way, in ms (0: no proxy). */
  delayMs: number;
  target: string;
  direct: string;
  stop(): Promise<void>;
}

/** Same URL, other port: credentials and database stay. */
function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

export async function condition(stack: Stack, delayMs: number): Promise<Condition> {
  if (delayMs === 0) {
    return {
      name: 'loopback',
      delayMs,
      target: stack.target.url(),
      direct: stack.postgres.url(),
      stop: async () => undefined,
    };
  }
  const proxies: FaultProxy[] = [];
  try {
    proxies.push(await startFaultProxy({ upstreamPort: stack.target.port, delayMs }));
    proxies.push(await startFaultProxy({ upstreamPort: stack.postgres.port, delayMs }));
  } catch (err) {
    await Promise.all(proxies.map((p) => p.close()));
    throw err;
  }
  return {
    name: `${delayMs} ms each way`,
    delayMs,
    target: viaPort(stack.target.url(), proxies[0]!.port),
    direct: viaPort(stack.postgres.url(), proxies[1]!.port),
    stop: async () => {
      await Promise.all(proxies.map((p) => p.close()));
    },
  };
}
