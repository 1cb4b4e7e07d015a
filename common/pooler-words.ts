/**
 * The psql words (`-h -p -U -d --password`, common/option-table.ts) as `pooltest audit` and
 * `pooltest watch` take them: they name the pooler to run the checks against, as `--target`
 * does, and refine it. `-h`/`-p` alone are a target of their own; `-U`, `-d` or `--password`
 * with no pooler named would be silently ignored, so they are refused.
 */
import { PooltestError } from '../engine/record/errors.js';
import type { SharedArgs } from './command-grammar.js';

type Words = Pick<SharedArgs, 'target' | 'host' | 'port' | 'user' | 'database' | 'password' | 'direct'>;

/** Gives `args` a target from `-h`/`-p` when it has none; BAD_ARGUMENTS for words with no pooler. */
export function poolerFromWords(args: Words): void {
  if (args.target === undefined && (args.host !== undefined || args.port !== undefined)) {
    // A libpq keyword/value target: the host and port given win over it anyway (resolveTarget).
    args.target = [
      args.host !== undefined ? `host=${quoted(args.host)}` : '',
      args.port !== undefined ? `port=${args.port}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  if (args.target !== undefined) return;
  const stray = (
    [
      ['-U/--user', args.user],
      ['-d/--database', args.database],
      ['--password', args.password],
      ['--direct', args.direct],
    ] as const
  ).find(([, v]) => v !== undefined);
  if (stray !== undefined)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `${stray[0]} refines the pooler to run the checks against: give it with --target (or -h/-p) too`,
    );
}

/** A libpq value in single quotes, its quotes and backslashes escaped. */
function quoted(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}
