/**
 * Debian's Chromium for the browser tests of the rendered pages, driven by playwright-core.
 * Without /usr/bin/chromium a test says why and skips (scripts/setup.sh installs it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
/** The machine may have no network: Chromium must not try to reach one. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

/** Why `what` is skipped on this machine, or null when Chromium is there. */
export function chromiumMissing(what: string): string | null {
  return existsSync(CHROMIUM) ? null : `Chromium not found at ${CHROMIUM}: install it to run ${what}`;
}

/**
 * A temporary folder and a Chromium profile in it for the enclosing describe block: `write` puts
 * the pages to open in the folder first; both are gone after the block.
 */
export function useChromium(
  prefix: string,
  write: (dir: string) => void,
): { dir: () => string; context: () => BrowserContext } {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    write(dir);
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30_000,
    });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return { dir: () => dir!, context: () => context! };
}
