/**
 * What `npm pack` puts in the package, read from `npm pack --dry-run --json` (seconds, no
 * install; package.test.ts installs the real tarball). Issue 20: no LICENSE although
 * package.json said MIT, no docs/ although the README links there, and `npx pooltest` examples
 * that would run whatever someone else publishes under that name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { REPO } from '../support/cli.js';
import { exec } from './exec.js';

interface Pkg {
  version: string;
  license?: string;
  author?: string;
  repository?: unknown;
  homepage?: unknown;
  bugs?: unknown;
}

const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Pkg;

describe('the packed file list', () => {
  let files: string[];
  beforeAll(async () => {
    // --ignore-scripts: no prepack rebuild; the list is what matters here.
    const pack = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO });
    expect(pack.code, pack.stderr).toBe(0);
    files = (JSON.parse(pack.stdout) as Array<{ files: { path: string }[] }>)[0]!.files.map((f) => f.path);
  });

  test('holds an MIT LICENSE matching package.json', () => {
    expect(files).toContain('LICENSE');
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(path.join(REPO, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^MIT License/);
    expect(text).toContain('Copyright (c) 2026 the pooltest authors');
  });

  test('every relative link in the packed Markdown leads to a packed file', () => {
    const docs = files.filter((f) => f.endsWith('.md'));
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'INTERPRETING.md', 'docs/github-actions.md']));
    const broken: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(path.join(REPO, doc), 'utf8');
      for (const [, link] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link!)) continue; // https:, mailto:
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(doc), link!)).replace(/\/$/, '');
        if (!files.some((f) => f === target || f.startsWith(`${target}/`))) broken.push(`${doc}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('every npx example in the packed docs pins this version of pooltest', () => {
    const texts = files.filter((f) => /\.(md|ya?ml)$/.test(f));
    expect(texts.length).toBeGreaterThan(5);
    const unpinned: string[] = [];
    for (const file of texts) {
      const text = readFileSync(path.join(REPO, file), 'utf8');
      // npx [--yes] [-p X]... pooltest[@version]: the package npx fetches must be pinned.
      for (const m of text.matchAll(/npx\s+(?:--yes\s+)?(?:(?:-p|--package)\s+\S+\s+)*pooltest(@[\w.-]+)?/g)) {
        const viaPackage = /(?:-p|--package)\s+(\S+)/.exec(m[0]);
        const pinned = viaPackage
          ? /^(pooltest@|\.\/pooltest-)/.test(viaPackage[1]!) && viaPackage[1]!.includes(pkg.version)
          : m[1] === `@${pkg.version}`;
        if (!pinned) unpinned.push(`${file}: ${m[0]}`);
      }
    }
    expect(unpinned).toEqual([]);
  });

  test('names no placeholder repository, homepage or bug tracker', () => {
    // None is known yet (see the report of issue 20): absent is honest, a placeholder is not.
    for (const value of [pkg.repository, pkg.homepage, pkg.bugs])
      if (value !== undefined) expect(JSON.stringify(value)).not.toMatch(/example\.|placeholder|TODO|your-|<|>/i);
    expect(pkg.author).toBe('the pooltest authors');
  });
});
