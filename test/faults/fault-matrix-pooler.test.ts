/**
 * The fault matrix's half that hits the pooler and the server behind it (fault-matrix.ts says
 * what each row must satisfy): PgBouncer losing a server slot, killed, restarted, and Postgres
 * restarted, each in discovery, a check and the sweep. SIGINT and SIGTERM are named here too
 * (their rows are the interrupt tests').
 */
import { describeFaultMatrix } from './fault-matrix.js';

describeFaultMatrix('fault matrix, pooler and server: fault x phase', [
  'shrinking pool',
  'pooler killed',
  'pooler restarted',
  'postgres restarted',
  'SIGINT',
  'SIGTERM',
]);
