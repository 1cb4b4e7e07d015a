/**
 * A command's `--help`, generated from its grammar (command-grammar.ts) and the shared table
 * (option-table.ts): every option the parser accepts is listed, under the same name, letter
 * and value in every command, and none is listed that the parser would refuse.
 */
import type { CommandGrammar, SharedArgs } from './command-grammar.js';
import {
  SHARED_NAMES,
  SHARED_OPTIONS,
  STDOUT,
  type OptionRow,
  type SharedGroup,
  type SharedName,
} from './option-table.js';

/** The help's width: it reads in an 80-column terminal with room, as the hand-written ones did. */
const WIDTH = 96;
/** Where the descriptions start. */
const COLUMN = 26;

const GROUP_HEADINGS: Record<SharedGroup, string> = {
  Connection: 'Connection (as psql; the options win over the PG* variables)',
  Output: 'Output',
  General: 'General',
};

/** The whole help text of `grammar`, ending with a newline. */
export function renderHelp(grammar: CommandGrammar): string {
  const [first, ...more] = grammar.synopsis;
  const out = [`Usage: ${first}`, ...more.map((l) => `       ${l}`), '', grammar.about.trimEnd(), ''];
  for (const section of grammar.sections) {
    const rows = rowsOf(grammar, section);
    if (rows.length === 0) continue;
    const heading = GROUP_HEADINGS[section as SharedGroup] ?? section;
    out.push(`${heading}:`);
    const note = grammar.groupNotes?.[section] ?? (section === 'Output' ? outputNote(grammar) : undefined);
    if (note !== undefined) out.push(...wrap(note, 2, WIDTH));
    for (const [label, help] of rows) out.push(...option(label, help));
    out.push('');
  }
  // The shared options this command refuses are named too, so that a script written for one
  // command learns at once which of its words another does not take (and why: see the error).
  const unused = SHARED_NAMES.filter((n) => !Object.hasOwn(grammar.shared, n));
  if (unused.length > 0) {
    const where = grammar.command === '' ? 'pooltest' : `pooltest ${grammar.command}`;
    const names = unused.map((n) => `${SHARED_OPTIONS[n].short ? `-${SHARED_OPTIONS[n].short}/` : ''}--${n}`);
    out.push(...wrap(`Shared options ${where} does not take: ${names.join(' ')}.`, 0, WIDTH), '');
  }
  if (grammar.notes.trim() !== '') out.push(grammar.notes.trimEnd(), '');
  return out.join('\n');
}

/**
 * What `--help` or `--version` prints for `grammar` (help first, as when both are given), or
 * null when neither was asked for. The version comes from the caller: it lives above common/.
 */
export function helpOrVersion(grammar: CommandGrammar, shared: SharedArgs, version: () => string): string | null {
  if (shared.help) return renderHelp(grammar);
  if (shared.version) return `${version()}\n`;
  return null;
}

/** What `-` means for this command's outputs. */
function outputNote(grammar: CommandGrammar): string {
  return grammar.noStdout === null
    ? `FILE may be ${STDOUT} for standard output (one output at most); the terminal view then goes to stderr.`
    : `FILE may not be ${STDOUT} here: ${grammar.noStdout}.`;
}

/** [label, description] of the options listed under `section`. */
function rowsOf(grammar: CommandGrammar, section: string): [string, string][] {
  const rows: [string, string][] = [];
  for (const [name, wording] of Object.entries(grammar.shared) as [SharedName, true | string][]) {
    const row = SHARED_OPTIONS[name];
    if ((grammar.placeOf?.[name] ?? row.group) !== section) continue;
    rows.push([label(name, row), wording === true ? row.help : wording]);
  }
  for (const [name, row] of Object.entries(grammar.own))
    if (row.section === section) rows.push([label(name, row), row.help]);
  return rows;
}

/** `-U, --user USER`, `-?, --help`, `--sql FILE...`. */
function label(name: string, row: OptionRow): string {
  const value = row.value === undefined ? '' : ` ${row.value}${row.type === 'files' ? '...' : ''}`;
  return `${row.short ? `-${row.short}, ` : ''}--${name}${value}`;
}

function option(label: string, help: string): string[] {
  const head = `  ${label}`;
  const body = wrap(help, COLUMN, WIDTH);
  if (head.length + 2 > COLUMN) return [head, ...body];
  return [head.padEnd(COLUMN) + body[0]!.trimStart(), ...body.slice(1)];
}

/** `text` in lines of at most `width` columns, each indented by `indent`. */
function wrap(text: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(' '.repeat(indent) + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(' '.repeat(indent) + line);
  return lines;
}
