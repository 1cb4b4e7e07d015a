/**
 * How the subcommands of cli/ (diff, matrix, drivers) read their command line: by their grammar
 * (common/command-grammar.ts), with `--help` and `--version` answered before anything else.
 */
import { parseCommand, type CommandGrammar, type ParsedCommand } from '../common/command-grammar.js';
import { helpOrVersion } from '../common/command-help.js';
import { toolVersion } from '../runner/version.js';

/** The parsed command line, or null when `--help` or `--version` was answered on `stdout`. */
export function readOrAnswer(
  grammar: CommandGrammar,
  argv: string[],
  stdout: (text: string) => void,
): ParsedCommand | null {
  const parsed = parseCommand(grammar, argv);
  const answer = helpOrVersion(grammar, parsed.shared, toolVersion);
  if (answer === null) return parsed;
  stdout(answer);
  return null;
}
