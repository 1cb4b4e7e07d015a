/**
 * Writing a report where the user pointed: atomically for a regular file (a temp file beside
 * it, then a rename, so a CI job never reads half a report), and never at the cost of what the
 * path names. A symlink is followed (the rename happens at the real file, the link stays); a
 * path that exists and is not a regular file (a FIFO, a character device such as /dev/null, a
 * socket, a descriptor under /proc such as /dev/stdout) is written directly, since renaming
 * over it would replace the device or the pipe with a regular file; a directory is refused.
 * The temp file is removed on every failure.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';

/** What a path given as an output really is. */
export type OutputPlace =
  | { kind: 'atomic'; path: string }
  | { kind: 'direct'; path: string }
  /** One of this process's own descriptors (/dev/stdout, /proc/self/fd/N, /dev/fd/N). */
  | { kind: 'fd'; fd: number; path: string }
  | { kind: 'directory'; path: string };

/** Symlink hops followed before giving up (as the kernel's ELOOP). */
const MAX_HOPS = 40;

/** Follows symlinks (even dangling ones) to the place a write to `file` lands. */
export function outputPlace(file: string): OutputPlace {
  let p = path.resolve(file);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const dir = realOrNull(path.dirname(p));
    // /proc/<pid>/fd/N and friends (/dev/stdout, /dev/fd/N lead there) are magic links to an
    // open descriptor, never to be renamed beside. Our own descriptors are written as they
    // are open: opening the name again would truncate a redirected stdout (losing what was
    // printed) and fails for a socket (ENXIO). Anything else under /proc: open the name.
    if (dir === `/proc/${process.pid}/fd` && /^\d+$/.test(path.basename(p)))
      return { kind: 'fd', fd: Number(path.basename(p)), path: file };
    if (dir !== null && (dir === '/proc' || dir.startsWith('/proc/'))) return { kind: 'direct', path: file };
    if (dir !== null) p = path.join(dir, path.basename(p));
    const st = lstatOrNull(p);
    if (st === null) return { kind: 'atomic', path: p };
    if (st.isSymbolicLink()) {
      p = path.resolve(path.dirname(p), readlinkSync(p));
      continue;
    }
    if (st.isDirectory()) return { kind: 'directory', path: p };
    return { kind: st.isFile() ? 'atomic' : 'direct', path: p };
  }
  throw new Error(`${file}: too many levels of symbolic links`);
}

/**
 * Throws (with a message naming the reason) when `file` cannot be written: a directory, a
 * folder that is not a folder or not writable. Done before a run, so a typo costs no run.
 */
export function checkOutputPath(file: string): void {
  const place = outputPlace(file);
  if (place.kind === 'directory') throw new Error(`${file} is a directory`);
  if (place.kind === 'direct' || place.kind === 'fd') {
    // Not opened here: opening a FIFO (and closing it) would end a reader waiting on it.
    accessSync(place.path, constants.W_OK);
    return;
  }
  // The rename needs the folder (or the nearest one that exists, as missing ones are made).
  let dir = path.dirname(place.path);
  while (lstatOrNull(dir) === null && path.dirname(dir) !== dir) dir = path.dirname(dir);
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  accessSync(dir, constants.W_OK | constants.X_OK);
}

/** Writes `text` to `file` as described in the file comment. */
export function writeAtomically(file: string, text: string): void {
  const place = outputPlace(file);
  if (place.kind === 'directory') throw new Error(`${file} is a directory`);
  if (place.kind === 'fd') return writeToFd(place.fd, text);
  if (place.kind === 'direct') {
    if (!statSync(place.path).isFIFO()) return writeFileSync(place.path, text);
    // A synchronous open of a FIFO without a reader would block the event loop, and with it
    // the signal handlers, for good: opened without blocking, waited for a reader (bounded).
    const fd = openFifoForWriting(place.path);
    try {
      return writeToFd(fd, text);
    } finally {
      closeSync(fd);
    }
  }
  mkdirSync(path.dirname(place.path), { recursive: true });
  // Short and hidden, beside the file: `<name>.<pid>.tmp` could pass the 255-byte name limit
  // for a long name that is itself valid.
  const tmp = path.join(path.dirname(place.path), `.pooltest-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, place.path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** How long a write waits for a process to open a FIFO for reading. */
const FIFO_READER_WAIT_MS = 2_000;

/**
 * A FIFO opens for writing without blocking only once a reader has it open (else ENXIO):
 * retried for a bounded while, then refused. The descriptor stays non-blocking; writeToFd
 * waits out a full pipe.
 */
function openFifoForWriting(file: string): number {
  const until = Date.now() + FIFO_READER_WAIT_MS;
  for (;;) {
    try {
      return openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      if (Date.now() >= until)
        throw new Error(`${file} is a FIFO that no process opened for reading within ${FIFO_READER_WAIT_MS} ms`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** Writes all of `text` to an open descriptor, waiting out EAGAIN (stdout may be non-blocking). */
function writeToFd(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
