/**
 * A closed stdout or stderr (`pooltest --list-profiles | head -1`, a CI log reader that went
 * away) must cost nothing but that output. Node reports the failed write as an 'error' event
 * on the stream (EPIPE), and an 'error' event nobody listens to ends the process with a stack
 * trace and exit 1: the run's cleanup, sweep and report files would be lost to a `head`. So
 * each stream gets a listener that notes it closed, and every later write to it is dropped;
 * the run carries on, and its exit code is its own. Loaded by the entry point before anything
 * can write, and importing nothing, so it covers every subcommand.
 */
const closed = new WeakSet<NodeJS.WriteStream>();

for (const stream of [process.stdout, process.stderr]) {
  // Whatever the error (EPIPE, EIO of a terminal that went away), nobody reads this stream
  // any more: there is no one to tell, so stop writing to it, quietly.
  stream.on('error', () => closed.add(stream));
}

/** Writes `text` unless the stream was found closed; never throws, never emits unhandled. */
export function writeTo(stream: NodeJS.WriteStream, text: string): void {
  if (closed.has(stream) || stream.destroyed || !stream.writable) return;
  stream.write(text);
}
