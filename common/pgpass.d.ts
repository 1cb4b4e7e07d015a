/**
 * The part of the `pgpass` module (node-postgres's reader of libpq's password file) that
 * engine/target/pass-file.ts uses: its line parser and matcher. The module ships no types.
 */
declare module 'pgpass/lib/helper.js' {
  interface PassEntry {
    host: string;
    port: string;
    database: string;
    user: string;
    password: string;
  }
  const helper: {
    /** One line of the file as its five fields (`\:` and `\\` unescaped), or null for a comment or a short line. */
    parseLine(line: string): PassEntry | null;
    /** Whether every field is present (and the port a number or `*`). */
    isValidEntry(entry: PassEntry): boolean;
    /** Whether the entry's host, port, database and user equal the connection's or are `*`. */
    match(
      connection: { host: string; port: string | number; database: string; user: string },
      entry: PassEntry,
    ): boolean;
  };
  export default helper;
}
