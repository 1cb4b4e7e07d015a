/**
 * What the terminal asks of the output, read before anything is rendered: colour or not, and
 * the width to lay out for. Apart from the renderers (and the catalogue and labels they import)
 * so that a command can set up its output without loading them.
 */

/** Colour on a TTY unless --no-color or NO_COLOR says otherwise; FORCE_COLOR turns it on anywhere. */
export function colorWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTty;
}

/**
 * The width to lay out for, from what the terminal reports. A pipe reports nothing, and some
 * terminals (a container's console, an IDE's) report 0 columns: folding to that printed one
 * word per line. Below 40 columns nothing folds readably either.
 */
export function terminalWidth(columns: number | undefined, fallback = 120): number {
  if (columns === undefined || !Number.isFinite(columns) || columns <= 0) return fallback;
  return Math.max(40, Math.floor(columns));
}
