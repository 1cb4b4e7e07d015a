/**
 * pooltest's own version, from its package.json. Apart from run.ts so that `--version`, `--help`
 * and the subcommands can say it without loading the engine and the check runner.
 */
import { readFileSync } from 'node:fs';

let cachedVersion: string | null = null;

/** The version in pooltest's own package.json. */
export function toolVersion(): string {
  if (cachedVersion) return cachedVersion;
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'pooltest' && pkg.version) return (cachedVersion = pkg.version);
    } catch {
      // try the next location: source checkout vs compiled dist
    }
  }
  return (cachedVersion = '0.0.0');
}
