/**
 * The network conditions the benchmark measures under: loopback straight to the fixture, and
 * the same fixture behind fault proxies that delay every chunk each way (a pooler in another
 * availability zone). The direct PostgreSQL gets its own proxy, since a remote pooler's server
 * is just as far away.
 */
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import type { Stack } from '../../fixtures/stack.js';
import { SequentialWire } from './round-trips.js';

export interface Condition {
  name: string;
  /** Delay per chunk each way, in ms (0: no proxy). */
  delayMs: number;
  target: string;
  direct: string;
  /** What was on the wire through this condition's proxies: the sequential round trips (none on loopback). */
  wire: SequentialWire;
  stop(): Promise<void>;
}

/** Same URL, other port: credentials and database stay. */
function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

/**
 * `onWire`: also told of every chunk in flight (bench/speed/trace-main.ts writes them into its
 * trace). `handshake`: each new connection's TCP handshake takes a round trip too (fault-proxy.ts).
 */
export async function condition(
  stack: Stack,
  delayMs: number,
  onWire?: (fromMs: number, toMs: number) => void,
  handshake = false,
): Promise<Condition> {
  const wire = new SequentialWire();
  if (delayMs === 0) {
    return {
      name: 'loopback',
      delayMs,
      target: stack.target.url(),
      direct: stack.postgres.url(),
      wire,
      stop: async () => undefined,
    };
  }
  const proxies: FaultProxy[] = [];
  try {
    // One wire for both: a step on the direct server while the pooler works overlaps, as it should.
    const onInFlight = (from: number, to: number): void => {
      wire.add(from, to);
      onWire?.(from, to);
    };
    proxies.push(await startFaultProxy({ upstreamPort: stack.target.port, delayMs, handshake, onInFlight }));
    proxies.push(await startFaultProxy({ upstreamPort: stack.postgres.port, delayMs, handshake, onInFlight }));
  } catch (err) {
    await Promise.all(proxies.map((p) => p.close()));
    throw err;
  }
  return {
    name: handshake ? `${delayMs} ms/way+handshake` : `${delayMs} ms each way`,
    delayMs,
    target: viaPort(stack.target.url(), proxies[0]!.port),
    direct: viaPort(stack.postgres.url(), proxies[1]!.port),
    wire,
    stop: async () => {
      await Promise.all(proxies.map((p) => p.close()));
    },
  };
}
