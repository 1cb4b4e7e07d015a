/**
 * The HTML report as text: a card and a sequence diagram per check with the recorded backends
 * in it, the crossing marked on the right step, and report text that cannot become markup.
 * The rendered page is tested in a real browser in html-browser.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { renderHtml } from '../../reporters/html-reporter.js';
import { esc } from '../../reporters/html.js';
import { pgbouncerReport } from './samples.js';
import { hostileReport } from './html-samples.js';

/** The `<svg class="seq">` of one check. */
function svgOf(html: string, id: string): string {
  const m = new RegExp(`<svg class="seq"[^>]*data-check="${id.replace('/', '\\/')}"[^>]*>[\\s\\S]*?</svg>`).exec(html);
  return m?.[0] ?? '';
}

describe('HTML report', () => {
  test('one card and one diagram per check, each showing every backend its steps recorded', () => {
    const report = pgbouncerReport();
    const html = renderHtml(report);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    for (const c of report.checks) {
      expect(html, c.id).toContain(`<section class="check" id="check-${c.id.replace('/', '-')}"`);
      const svg = svgOf(html, c.id);
      expect(svg, c.id).not.toBe('');
      for (const pid of new Set(c.steps.map((s) => s.pid).filter((p) => p !== null)))
        expect(svg, `${c.id} ${pid}`).toContain(`class="lifeline backend" data-pid="${pid}"`);
    }
  });

  test("the crossing is the observer step on A's backend, and only a breaking outcome is drawn as reached", () => {
    const report = pgbouncerReport();
    const html = renderHtml(report);
    const leak = report.checks.find((c) => c.id === 'session/set-leak')!;
    const take = leak.steps.find((s) => s.tag === 'observe.take')!;
    expect(svgOf(html, leak.id)).toContain(
      `<g class="step ok crossing reached decisive" data-seq="${take.seq}" data-pid="${take.pid}" data-session="O1">`,
    );
    // SET LOCAL's state ends with A's transaction (scoped on any pooler): O1 lands, reaches nothing.
    expect(report.checks.find((c) => c.id === 'session/set-local')?.outcome).toBe('scoped');
    expect(svgOf(html, 'session/set-local')).toContain('crossing landed');
    expect(svgOf(html, 'session/set-local')).not.toContain('crossing reached');
  });

  test('hostile SQL, errors and notices stay text: no tag, attribute or script of theirs survives', () => {
    const html = renderHtml(hostileReport());
    // Our one script, and nothing else that could run or load.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<img|<iframe|<b |onerror="|<\/svg><script/i);
    expect(html).toContain(esc('</text></svg><script>window.pwned = 1</script>'));
    expect(html).not.toContain('S3cret');
    // The policy admits exactly the inline script by its hash.
    const script = /<script>([\s\S]*)<\/script><\/body>/.exec(html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(html).toContain(`script-src &#39;sha256-${hash}&#39;`);
    expect(html).not.toMatch(/https?:\/\/[^"\s<]*\.(js|css)\b|<link /);
  });

  test('esc leaves nothing that opens a tag or ends an attribute', () => {
    expect(esc(`<a href="x" title='y'>&`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
    expect(esc('a\u0000b\u001bc')).toBe('a\\x00b\\x1bc');
  });
});
