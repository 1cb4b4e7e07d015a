/**
 * Argument parsing shared by the report subcommands (`diff`, `matrix`): node's parseArgs with
 * positionals, its complaints turned into BAD_ARGUMENTS followed by the usage, and `--help`
 * answered before anything else is looked at.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PooltestError } from '../engine/record/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: T }>>;

/**
 * Parsed arguments, or null when `--help` was asked for (the usage has been printed). `options`
 * must declare `help` (boolean, short `h`) so that parseArgs accepts it.
 */
export function parseSubcommandArgs<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
  stdout: (text: string) => void,
): Parsed<T> | null {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (err) {
    throw new PooltestError('BAD_ARGUMENTS', `${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
  }
  if ((parsed.values as Record<string, unknown>)['help'] === true) {
    stdout(`${usage}\n`);
    return null;
  }
  return parsed;
}
