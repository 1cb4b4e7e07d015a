/**
 * A loopback TCP proxy that can stall: while stalled it still accepts connections but moves no
 * byte in either direction, and opens nothing upstream - a network that hangs rather than
 * fails, or "a listener that accepts TCP and never answers". Resumed, it forwards again
 * (connections accepted meanwhile are connected upstream then).
 */
import net from 'node:net';

export interface StallProxy {
  port: number;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallProxy(upstreamPort: number, opts: { stalled?: boolean } = {}): Promise<StallProxy> {
  let stalled = opts.stalled ?? false;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();
  const waiting: Array<() => void> = [];

  const link = (pair: { client: net.Socket; upstream: net.Socket | null }): void => {
    const upstream = net.connect({ host: '127.0.0.1', port: upstreamPort });
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    pair.client.on('error', () => upstream.destroy());
    upstream.on('close', () => pair.client.destroy());
    pair.client.on('close', () => {
      upstream.destroy();
      pairs.delete(pair);
    });
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
  };

  const server = net.createServer((client) => {
    const pair = { client, upstream: null as net.Socket | null };
    pairs.add(pair);
    client.on('error', () => undefined);
    if (stalled) {
      client.pause();
      waiting.push(() => {
        client.resume();
        link(pair);
      });
    } else {
      link(pair);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    stall() {
      stalled = true;
      // Established connections go quiet too: nothing read, so nothing forwarded.
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    resume() {
      stalled = false;
      for (const p of pairs) {
        p.client.resume();
        p.upstream?.resume();
      }
      for (const go of waiting.splice(0)) go();
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream?.destroy();
      }
      await new Promise((r) => server.close(r));
    },
  };
}
