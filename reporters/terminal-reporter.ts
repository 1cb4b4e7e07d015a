/**
 * The terminal view of a report: what was discovered, then one row per check (check, outcome,
 * expected, verdict) with a line of evidence and a line of advice beneath. Colour comes from
 * chalk and is off when NO_COLOR is set, when --no-color is given, or when output is not a TTY.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { CheckResult, Discovery, Report, Verdict } from '../engine/types.js';

export interface TerminalOptions {
  color: boolean;
  /** Print the steps (session, backend, SQL, result) of every check. */
  verbose?: boolean;
  /** Terminal width used to cut long lines. */
  width?: number;
}

export function colorWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTty;
}

export function renderDiscovery(d: Omit<Discovery, 'steps'>, c: ChalkInstance): string {
  const pooler = d.pooler ? `${d.pooler.name} ${d.pooler.version ?? ''}`.trim() : 'not identified';
  const pool = d.poolSize !== null ? String(d.poolSize) : `no limit up to ${d.poolBound}`;
  return [
    `${c.bold('Discovery')}  mode ${c.bold(d.mode)}  pool ${pool}  server ${d.serverVersion}  pooler ${pooler}`,
    c.dim(`  shared between connected clients: ${yes(d.sharedAcrossClients)}; client keeps its backend: ${yes(d.clientKeepsBackend)}; backends reused after disconnect: ${yes(d.reuseAfterDisconnect)}; transaction blocks: ${d.transactionBlocks}; round trip ${d.rttMs} ms, wait bound ${d.waitBoundMs} ms`),
  ].join('\n');
}

export function renderReport(report: Report, opts: TerminalOptions): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = opts.width ?? 100;
  const t = report.target;
  const lines: string[] = [];
  lines.push(`${c.bold('pooltest')} ${report.tool.version}  target ${t.user}@${t.host}:${t.port}/${t.database}  run ${report.runId}`);
  lines.push(renderDiscovery(report.discovery, c));
  lines.push(report.profile ? `${c.bold('Profile')}    ${report.profile.name}: ${report.profile.title}` : `${c.bold('Profile')}    none: observations only (use --profile to assert)`);
  lines.push('');
  const idWidth = Math.max(5, ...report.checks.map((r) => r.id.length));
  lines.push(c.bold(`${pad('CHECK', idWidth)}  ${pad('OUTCOME', 12)}  ${pad('EXPECTED', 12)}  VERDICT`));
  for (const r of report.checks) {
    lines.push(`${pad(r.id, idWidth)}  ${pad(r.outcome ?? '-', 12)}  ${pad(r.expected ?? '-', 12)}  ${verdictText(r.verdict, c)}`);
    lines.push(c.dim(cut(`    evidence: ${r.evidence}`, width)));
    if (r.advice) lines.push(c.cyan(cut(`    advice:   ${r.advice}`, width)));
    if (opts.verbose) lines.push(...renderSteps(r, width));
  }
  lines.push('');
  if (report.sweep) {
    lines.push(report.sweep.clean
      ? c.green(`Sweep: clean (${report.sweep.backendsVisited.length} backend(s) visited via ${report.sweep.via.join(' and ')})`)
      : c.red(`Sweep: DIRTY - pooltest left state behind: ${report.sweep.leftovers.join('; ')}`));
  }
  const s = report.summary;
  lines.push(`${c.bold('Summary')}  ${s.total} checks: ${c.green(`${s.pass} pass`)}, ${c.red(`${s.fail} fail`)}, ${c.yellow(`${s.inconclusive} inconclusive`)}, ${s.skipped} skipped  (${(report.durationMs / 1000).toFixed(1)} s)  exit ${s.exitCode}`);
  return lines.join('\n') + '\n';
}

function renderSteps(r: CheckResult, width: number): string[] {
  return r.steps.map((s) => {
    const res = s.error ? `ERROR ${s.error.code ?? ''} ${s.error.message}` : s.timedOut ? 'no answer (waited)' : JSON.stringify(s.results.filter((x) => x.length > 0).map((x) => x[0]));
    return cut(`      ${String(s.seq).padStart(2)} ${pad(s.session, 3)} pid ${String(s.pid ?? '-').padStart(6)}  ${s.tag}: ${s.sql.replace(/\s+/g, ' ')}  -> ${res}`, width + 60);
  });
}

function verdictText(v: Verdict, c: ChalkInstance): string {
  switch (v) {
    case 'pass':
      return c.green('pass');
    case 'fail':
      return c.red.bold('FAIL');
    case 'inconclusive':
      return c.yellow('inconclusive');
    default:
      return c.dim('skipped');
  }
}

function yes(b: boolean): string {
  return b ? 'yes' : 'no';
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}
