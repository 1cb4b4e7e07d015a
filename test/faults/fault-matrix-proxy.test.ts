/**
 * The fault matrix's half on the way to the pooler and at its limit (fault-matrix.ts says what
 * each row must satisfy): the client-side network stalls, drops or corrupts a frame, and a
 * PgBouncer at capacity refuses, each in discovery, a check and the sweep.
 */
import { describeFaultMatrix } from './fault-matrix.js';

describeFaultMatrix('fault matrix, network and capacity: fault x phase', [
  'refusal at capacity',
  'stall',
  'drop',
  'corrupt',
]);
