/**
 * `--sql FILE`: SQL files and migrations, several statements per file. A file is read whole
 * (SQL files are small next to logs), checked for being text, and parsed in one piece when it
 * can be; otherwise it is split into statements with the lexer so that one broken statement or
 * a psql meta-command costs only itself.
 */
import { isUtf8 } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { PooltestError } from '../engine/record/errors.js';
import type { AuditCollector } from './audit-collector.js';
import type { InputSummary } from './audit-types.js';
import { fileError, firstInvalidUtf8, lineAndColumn } from './input-checks.js';
import { ByteToChar, LineIndex } from './line-index.js';
import { splitSql } from './sql-splitter.js';

/**
 * Larger than any hand-written migration. The lexer's token list for a file costs many times
 * the file's size, so bigger inputs (data dumps) are refused rather than allowed to exhaust memory.
 */
const MAX_SQL_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Reads one SQL file into the collector and says what it contributed. `-` is stdin (read
 * whole, as a file is, and named `stdin` in sources), so a migration tool's output can be
 * piped in.
 */
export async function auditSqlFile(
  file: string,
  collector: AuditCollector,
  maxStatementBytes: number,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<InputSummary> {
  const path = file === '-' ? 'stdin' : file;
  const raw = file === '-' ? await readStdin(stdin) : await readSqlBytes(path);
  // A UTF-8 byte order mark is not part of the first statement.
  const bytes = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.subarray(3) : raw;
  const text = bytes.toString('utf8');
  const lines = new LineIndex(text);
  const at = (base: number) => (offset: number) => `${path}:${lines.lineAt(base + offset)}`;
  const before = collector.statements;
  let metaCommands = 0;
  const whole = bytes.length <= maxStatementBytes ? collector.classifier.classify(text) : null;
  if (whole?.ok === true) {
    collector.record(text, whole, 1, at(0));
  } else {
    const pieces = splitSql(text, bytes);
    if (pieces === null) {
      const where = whole?.ok === false ? whole.position : 0;
      collector.record(
        text,
        {
          ok: false,
          error: `the lexer cannot split this file: unterminated quote or comment, or COPY ... FROM stdin data? (${whole?.ok === false ? whole.error : 'file too large to parse whole'})`,
          position: where,
        },
        1,
        at(0),
      );
    } else {
      const chars = new ByteToChar(bytes);
      for (const piece of pieces) {
        const start = chars.at(piece.start);
        const pieceText = text.slice(start, chars.at(piece.end));
        if (piece.kind === 'meta-command') {
          metaCommands++;
          continue;
        }
        const size = piece.end - piece.start;
        if (size > maxStatementBytes) {
          collector.countStatements(1);
          collector.unparsed(
            pieceText,
            at(start)(0),
            `statement too long to parse: ${size} bytes (limit ${maxStatementBytes}, see --max-statement-bytes)`,
            1,
          );
        } else {
          collector.consume(pieceText, 1, at(start));
        }
      }
    }
  }
  return {
    kind: 'sql',
    name: path,
    statements: collector.statements - before,
    ...(metaCommands > 0 ? { metaCommands } : {}),
  };
}

/** All of stdin, refused past the size an SQL file may have (a pipe has no size to stat). */
async function readStdin(stdin: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stdin) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > MAX_SQL_FILE_BYTES)
        throw new PooltestError(
          'AUDIT_INPUT',
          `--sql stdin: more than the ${MAX_SQL_FILE_BYTES} bytes an SQL file may have; split it`,
          { file: 'stdin' },
        );
      chunks.push(bytes);
    }
  } catch (error) {
    if (error instanceof PooltestError) throw error;
    throw fileError('stdin', error, '--sql');
  }
  return checkedText(Buffer.concat(chunks), 'stdin');
}

async function readSqlBytes(path: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!info.isFile()) {
      throw new PooltestError(
        'AUDIT_INPUT',
        `--sql ${path}: not a regular file (FIFO, socket or device); pass logs and pipes with --log`,
        { file: path },
      );
    }
    if (info.size > MAX_SQL_FILE_BYTES) {
      throw new PooltestError(
        'AUDIT_INPUT',
        `--sql ${path}: ${info.size} bytes is more than the ${MAX_SQL_FILE_BYTES} an SQL file may have; split it`,
        { file: path },
      );
    }
    bytes = await readFile(path);
  } catch (error) {
    if (error instanceof PooltestError) throw error;
    throw fileError(path, error, '--sql');
  }
  return checkedText(bytes, path);
}

/** `bytes` if they are UTF-8 text; refused with the line and column of the first bad byte. */
function checkedText(bytes: Buffer, path: string): Buffer {
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const { line, column } = lineAndColumn(bytes, nul);
    throw new PooltestError(
      'AUDIT_INPUT',
      `--sql ${path}: looks binary (NUL byte at line ${line}, column ${column}); not an SQL file`,
      { file: path, offset: nul },
    );
  }
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    const { line, column } = lineAndColumn(bytes, offset);
    throw new PooltestError(
      'AUDIT_INPUT',
      `--sql ${path}: not valid UTF-8 at line ${line}, column ${column} (byte offset ${offset}); convert it first, e.g. iconv -f LATIN1 -t UTF-8`,
      { file: path, offset },
    );
  }
  return bytes;
}
