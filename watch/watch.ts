/**
 * The watch as a library call: start the recording proxy in front of an upstream, follow every
 * connection's transactions, and on stop join the dependencies found with what the pooler
 * does (a pooltest report, a run of the relevant checks now, or typical transaction pooling).
 * `pooltest watch` is a thin shell around {@link startWatch}.
 */
import { PooltestError } from '../engine/record/errors.js';
import { hostPort, redactEndpoint, resolveTarget, type Target } from '../engine/target/target.js';
import type { AuditCheckId } from '../audit/audit-types.js';
import { behaviourFromReportFile, poolerSummary } from '../audit/pooler-behaviour.js';
import { resolveBehaviour } from '../audit/pooler-source.js';
import { loadParser } from '../common/sql-parser.js';
import { checkTargetReachable, type TargetRefinements } from '../audit/target-run.js';
import { ConnectionTracker } from './connection-tracker.js';
import { FindingsCollector } from './findings-collector.js';
import { TrafficCollector } from './traffic-collector.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { startProxy, type RunningProxy } from './proxy.js';
import { EffectsCache } from './statement-effects.js';
import { connectUpstream } from './upstream.js';
import { WATCH_SCHEMA_VERSION, type WatchReport } from './watch-types.js';

export interface WatchOptions extends TargetRefinements {
  /** The real Postgres or pooler: URL or host:port (PG* variables fill the rest, as psql). */
  upstream: string;
  /** Where the proxy listens; default 127.0.0.1 on a free port. */
  listenHost?: string;
  listenPort?: number;
  /** A pooltest JSON report of the pooler to join the findings with. */
  report?: string;
  /** A pooler to run the relevant checks against when the watch stops. */
  target?: string;
  connectTimeoutMs?: number;
  /** Bound on a client sending its StartupMessage; default 30 000 ms. */
  startupTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Called with each warning as it happens (also kept for the report). */
  onWarning?(text: string): void;
}

/** A watch in progress. */
export interface Watching {
  host: string;
  port: number;
  /** The resolved upstream (holds the password: never print it; use `upstreamText`). */
  upstream: Target;
  upstreamText: string;
  /** Stops the proxy and returns the report (without `command`, which the caller fills in). */
  stop(): Promise<WatchReport>;
}

/** Most warnings kept in a report; the rest are counted in the last one. */
const MAX_WARNINGS = 200;

/** Starts watching. Throws a {@link PooltestError} when it cannot (bad options, port taken). */
export async function startWatch(options: WatchOptions): Promise<Watching> {
  const started = Date.now();
  if (options.report !== undefined && options.target !== undefined) {
    throw new PooltestError('BAD_ARGUMENTS', '--report and --target both say what the pooler does: give one of them');
  }
  const upstream = resolveTarget({ target: options.upstream }, options.env ?? process.env);
  // Read the report first: a typo in its path should not cost a whole test run.
  const fromReport = options.report !== undefined ? await behaviourFromReportFile(options.report) : null;
  // Nor an upstream that cannot be reached: every connection of the command would fail, and a
  // watch that saw nothing has nothing to report. Only what each connection will do (TCP, then
  // TLS when the URL asks for it), bounded the same way; no login, the proxy never has one.
  await checkUpstreamReachable(upstream, options.connectTimeoutMs ?? 10_000);
  // And a pooler that cannot be reached should not cost one either.
  if (options.target !== undefined)
    await checkTargetReachable({ ...options, target: options.target }, options.connectTimeoutMs ?? 10_000, options.env);
  await loadParser();
  const cache = new EffectsCache();
  const collector = new FindingsCollector();
  const traffic = new TrafficCollector(new Set(CATALOGUE.map((c) => c.id)));
  // The open connections, each with whether the upstream has sent it a message yet.
  const trackers = new Map<ConnectionTracker, boolean>();
  const warnings: string[] = [];
  let dropped = 0;
  const warn = (text: string): void => {
    // Live printing is bounded like the report: a noisy workload must not flood the terminal.
    if (warnings.length < MAX_WARNINGS) {
      options.onWarning?.(text);
      warnings.push(text);
    } else if (dropped++ === 0) options.onWarning?.(`more than ${MAX_WARNINGS} warnings: the rest are only counted`);
  };
  let connections = 0;
  let transactions = 0;
  let statements = 0;
  // Connections the upstream never answered (unreachable, or closed without a byte): unseen.
  let unanswered = 0;
  let proxy: RunningProxy;
  try {
    proxy = await startProxy({
      upstream,
      host: options.listenHost ?? '127.0.0.1',
      port: options.listenPort ?? 0,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
      warn,
      observe(clientPort) {
        const tracker = new ConnectionTracker(
          { id: ++connections, applicationName: null, user: null, database: null, clientPort },
          cache,
          (d, c) => collector.add(d, c),
          warn,
          (e, c) => traffic.add(e, c),
        );
        trackers.set(tracker, false);
        return {
          frontend: (frame) => tracker.frontend(frame),
          backend(frame) {
            // Not after close: bytes still in flight must not bring a closed connection back.
            if (trackers.has(tracker)) trackers.set(tracker, true);
            tracker.backend(frame);
          },
          closed() {
            tracker.close();
            transactions += tracker.transactions;
            statements += tracker.statements;
            if (trackers.get(tracker) === false) unanswered++;
            if (tracker.state.capped)
              warn(
                `connection ${tracker.info.id}: more than the per-connection bound of live state items; later ones were not followed`,
              );
            trackers.delete(tracker);
          },
        };
      },
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `--listen ${options.listenHost ?? '127.0.0.1'}:${options.listenPort ?? 0}: cannot listen (${e.code ?? e.message})`,
    );
  }
  const upstreamText = redactEndpoint(options.upstream);
  return {
    host: proxy.host,
    port: proxy.port,
    upstream,
    upstreamText,
    async stop() {
      await proxy.stop();
      // Connections the proxy could not close in time still report what they saw.
      for (const [tracker, answered] of trackers) {
        tracker.close();
        transactions += tracker.transactions;
        statements += tracker.statements;
        if (!answered) unanswered++;
      }
      if (dropped > 0) warnings.push(`... and ${dropped} more warning(s)`);
      const checks = collector.checks();
      // Its progress lines say `pooltest watch:` (they said `pooltest audit:`, issue 40).
      const behaviour = await resolveBehaviour(fromReport, { ...options, command: 'watch' }, checks);
      for (const id of checks) {
        if (behaviour.basis !== 'typical' && !behaviour.outcomes.has(id))
          warnings.push(`${id} is not in the pooler's results: what it does there is unknown`);
      }
      const findings = collector.findings(behaviour);
      return {
        schemaVersion: WATCH_SCHEMA_VERSION,
        tool: { name: 'pooltest', command: 'watch' },
        generatedAt: new Date(started).toISOString(),
        upstream: upstreamText,
        listen: hostPort(proxy.host, proxy.port),
        command: null,
        // The protocol-level check is not an audit id, but poolerSummary only uses ids as keys.
        pooler: poolerSummary(behaviour, checks as AuditCheckId[]),
        summary: {
          connections,
          transactions,
          statements,
          unanswered,
          parsedTexts: cache.parsedTexts,
          findings: findings.length,
          breaking: findings.filter((f) => f.breaks === true).length,
          durationMs: Date.now() - started,
        },
        findings,
        overflow: collector.overflow,
        warnings,
        traffic: traffic.traffic(),
        trafficOverflow: traffic.overflow,
      };
    },
  };
}

/**
 * Throws the upstream's coded error (TARGET_REFUSED, TARGET_UNREACHABLE, TLS_FAILED...) when a
 * connection to it cannot be opened within `timeoutMs` (each of TCP, SSLRequest and handshake).
 */
async function checkUpstreamReachable(upstream: Target, timeoutMs: number): Promise<void> {
  const socket = await connectUpstream(upstream, timeoutMs);
  socket.on('error', () => undefined);
  socket.destroy();
}
