/**
 * The GitHub Actions examples must run as written (issue 20): action-junit-report needs
 * `checks: write`; Node.js 20 is past its end of life, and so are the action majors that run
 * on it; `push` for every branch plus `pull_request` runs each pull request twice; a gate must
 * assert observed outcomes, not documentation. What the actions require was checked against
 * their own documentation and release notes (action-junit-report's README, "PR run
 * permissions"; the Node.js 24 releases of checkout v6, setup-node v6, upload-artifact v6,
 * download-artifact v7, action-junit-report v6). The doc embeds both files verbatim
 * (package.test.ts), so these checks cover it too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROFILES } from '../../profiles/index.js';
import { REPO } from '../support/cli.js';

const FILES = ['examples/github-actions/pooltest.yml', 'examples/github-actions/pooltest-matrix.yml'];
/** The first major of each action that runs on Node.js 24. */
const NODE24_MAJOR: Record<string, number> = {
  'actions/checkout': 5,
  'actions/setup-node': 5,
  'actions/upload-artifact': 6,
  'actions/download-artifact': 7,
  'mikepenz/action-junit-report': 6,
};

describe.each(FILES)('%s', (file) => {
  const text = readFileSync(path.join(REPO, file), 'utf8');

  test('uses only action majors that run on Node.js 24, and sets up Node.js 22 or newer', () => {
    const uses = [...text.matchAll(/uses:\s+([\w-]+\/[\w-]+)@v(\d+)/g)].map(([, name, major]) => ({
      name: name!,
      major: Number(major),
    }));
    expect(uses.length).toBeGreaterThan(0);
    for (const u of uses) {
      expect(NODE24_MAJOR[u.name], `${u.name}: not one the test knows`).toBeDefined();
      expect(u.major, u.name).toBeGreaterThanOrEqual(NODE24_MAJOR[u.name]!);
    }
    const versions = [...text.matchAll(/node-version:\s+(\d+)/g)].map(([, v]) => Number(v));
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) expect(v).toBeGreaterThanOrEqual(22);
  });

  test('does not run each pull request twice', () => {
    const on = /^on:\n((?: {2}.*\n)+)/m.exec(text)?.[1] ?? '';
    expect(on).toContain('pull_request');
    // `push:` with nothing under it means every branch, the pull request's too.
    expect(on).toMatch(/push:\n\s+branches:/);
  });

  test('grants the token only what the steps need, and checks: write where a check run is made', () => {
    const permissions = /^permissions:\n((?: {2}.*\n)+)/m.exec(text)?.[1] ?? '';
    expect(permissions).toContain('contents: read');
    if (text.includes('mikepenz/action-junit-report')) {
      expect(permissions).toContain('checks: write');
      // A fork's pull request gets a read-only token: the step must not run there.
      expect(text).toMatch(/head\.repo\.full_name == github\.repository/);
    } else expect(permissions).not.toMatch(/: write/);
  });

  test('gates only on observed expectations: --expect, or a profile whose every expectation was observed', () => {
    const profiles = [...text.matchAll(/(?:--profile\s+|profile:\s+)([\w.-]+)/g)].map(([, name]) => name!);
    for (const name of profiles) {
      const profile = PROFILES.find((p) => p.name === name);
      expect(profile, name).toBeDefined();
      expect(
        Object.values(profile!.expect).every((e) => e.basis === 'observed'),
        `${name} has expectations nobody observed`,
      ).toBe(true);
    }
    if (text.includes('--strict')) expect(text).toMatch(/--expect\s+\S+/);
  });
});
