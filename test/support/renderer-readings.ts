/**
 * How test/reporters/renderers-agree reads each renderer's output back: what it says of every
 * check (outcome, verdict in words, severity), parsed from the text a person or a CI system
 * reads, not from the renderer's data.
 */
import { XMLParser } from 'fast-xml-parser';

/** What a renderer says about one check. */
export interface Said {
  outcome: string | null;
  verdict: string;
  severity: string;
}
export type Reading = Record<string, Said>;

export const SEVERITY_HEADING = /^(security|correctness|availability) \(\d+\)$/;

/** The terminal report: rows under their severity headings. */
export function readTerminal(text: string): Reading {
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (row && severity) out[row[1]!] = { outcome: dash(row[2]!), verdict: row[4]!.trim(), severity };
  }
  return out;
}

/** A Markdown table's rows whose first cell is a check id, as cells. */
export function markdownRows(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^\| `([a-z-]+\/[a-z-]+)`/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        line
          .slice(1, -1)
          .split(' | ')
          .map((c) => c.trim()),
      );
  }
  return rows;
}

/** Signs and emphasis off: the words under them. */
export function words(cell: string): string {
  return cell
    .replace(/\*\*/g, '')
    .replace(/[✅❌⚠️⏭❔❗\uFE0F]/gu, '')
    .replace(/\\(.)/g, '$1')
    .trim();
}

export function readMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, outcome, , verdict]] of markdownRows(text))
    out[id] = { outcome: dash(words(outcome!).replace(/`/g, '')), verdict: words(verdict!), severity: severity! };
  return out;
}

export function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The HTML report's overview rows (and, as a second reading, each check's card). */
export function readHtml(html: string, part: 'tr' | 'section'): Reading {
  const out: Reading = {};
  const re = new RegExp(`<${part}[^>]* data-id="([^"]+)" data-severity="([^"]+)"[^>]*>([\\s\\S]*?)</${part}>`, 'g');
  for (const m of html.matchAll(re)) {
    const body = m[3]!;
    const verdict = /<span class="verdict[^"]*">([^<]*)<\/span>/.exec(body)?.[1];
    const outcome = /<code class="(?:breaks)?">([^<]*)<\/code>/.exec(body)?.[1] ?? null;
    out[unescapeHtml(m[1]!)] = {
      outcome: outcome && unescapeHtml(outcome),
      verdict: unescapeHtml(verdict ?? '?'),
      severity: m[2]!,
    };
  }
  return out;
}

export function readJunit(xml: string): { reading: Reading; summary: string } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: {
      testsuite: {
        properties: { property: Prop[] };
        testcase: Array<{ name: string; properties?: { property: Prop[] } }>;
      };
    };
  };
  const suite = doc.testsuites.testsuite;
  const reading: Reading = {};
  for (const tc of suite.testcase) {
    if (tc.name === 'pooltest/sweep') continue;
    const prop = (n: string): string | null => tc.properties?.property.find((p) => p.name === n)?.value ?? null;
    reading[tc.name] = {
      outcome: prop('outcome'),
      verdict: prop('verdictText') ?? '?',
      severity: prop('severity') ?? '?',
    };
  }
  return { reading, summary: suite.properties.property.find((p) => p.name === 'summary')?.value ?? '' };
}
export interface Prop {
  name: string;
  value: string;
}

/** The terminal matrix's one column: an outcome and a mark, under severity headings. */
export function readMatrixTerminal(text: string): Reading {
  const marks: Record<string, (s: string) => string> = {
    '!': (s) => `observed: BREAKS (${s})`,
    '~': () => 'observed: no break',
    '~?': () => 'observed: effect unknown',
    '✗': () => 'FAIL',
    '?': () => 'inconclusive',
  };
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)(?: ([\d.]+x(?: \[[\d.]+-[\d.]+\])?))?(?: (!|~\?|~|✗|\?))?$/.exec(line);
    if (!row || !severity) continue;
    const outcome = row[2] === 'skipped' || row[2] === '-' ? null : row[2]!;
    const verdict = row[4]
      ? marks[row[4]]!(severity)
      : row[2] === 'skipped'
        ? 'skipped'
        : row[2] === '-'
          ? 'inconclusive'
          : 'pass';
    out[row[1]!] = { outcome, verdict, severity };
  }
  return out;
}

export function readMatrixMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, cell]] of markdownRows(text)) {
    const outcome = /`([^`]+)`/.exec(cell!)?.[1] ?? null;
    const observed = /(observed: .*)$/.exec(words(cell!))?.[1];
    const verdict =
      observed ??
      (cell!.includes('❌') ? 'FAIL' : cell!.includes('⚠️') ? 'inconclusive' : outcome === null ? 'skipped' : 'pass');
    out[id] = { outcome, verdict, severity: severity! };
  }
  return out;
}

export function readMatrixHtml(html: string): Reading {
  const out: Reading = {};
  for (const m of html.matchAll(/<tr data-id="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    const severity = /<td class="sev">([^<]+)<\/td>/.exec(m[2]!)![1]!;
    const cell = /<td class="([^"]*)">([\s\S]*?)<\/td>$/.exec(m[2]!)!;
    const outcome = /<code[^>]*>([^<]*)<\/code>/.exec(cell[2]!)?.[1] ?? null;
    const shown = [...cell[2]!.matchAll(/<span class="(?:none|breaks)">([^<]*)<\/span>/g)].map((x) => x[1]!);
    const verdict = outcome === null ? shown[0]! : (shown[0] ?? 'pass');
    out[m[1]!] = { outcome, verdict: unescapeHtml(verdict), severity };
  }
  return out;
}

/** The diff's NEW side: outcome and verdict, under severity headings (terminal) or in columns (Markdown). */
export function readDiffTerminal(text: string): Reading {
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (row && severity) out[row[1]!] = { outcome: dash(row[3]!), verdict: row[5]!.trim(), severity };
  }
  return out;
}

export function readDiffMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, , outcome, , verdict]] of markdownRows(text))
    out[id] = { outcome: dash(words(outcome!).replace(/`/g, '')), verdict: words(verdict!), severity: severity! };
  return out;
}

export function dash(s: string): string | null {
  return s === '-' || s === '—' ? null : s;
}

/**
 * Lines a terminal renderer folded, read back as one line each: a continuation is indented by
 * four spaces or more (an item of a list, such as a matrix's `  [1] ...`, by two).
 */
export function unfold(text: string): string {
  return text.replace(/\n {4,}/g, ' ');
}
