import type { Profile } from '../types.js';

const POOLING = 'https://www.pgpool.net/docs/latest/en/html/runtime-config-connection-pooling.html';

/**
 * pgpool-II's connection cache: a child process serves one client at a time and keeps its
 * backend for the next client; `reset_query_list` (default `ABORT; DISCARD ALL`) cleans it
 * when the client leaves. Within a client session everything behaves as on a direct connection.
 */
export const pgpool: Profile = {
  name: 'pgpool',
  title: 'pgpool-II 4.3, connection cache (raw mode)',
  pooler: 'pgpool-II',
  mode: 'connection-cache',
  versions: '4.3',
  ref: POOLING,
  expect: {
    'session/set-leak': { outcome: 'session', ref: `${POOLING} (connection_cache; reset_query_list)` },
    'temp/temp-table': { outcome: 'session', ref: `${POOLING} (reset_query_list: DISCARD ALL drops temp tables at disconnect)` },
    'locks/advisory-session': { outcome: 'exclusive', ref: POOLING },
    'notify/listen': { outcome: 'delivered', ref: POOLING },
    'prepared/sql-prepare': { outcome: 'session', ref: POOLING },
    'session/set-local': { outcome: 'scoped', ref: POOLING },
    'session/tracked-parameter': { outcome: 'session', ref: POOLING },
  },
};
