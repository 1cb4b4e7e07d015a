/** The `prepared/*` checks, in report order. */
import { close } from './close.check.js';
import { protocolNamed } from './protocol-named.check.js';
import { sqlPrepare } from './sql-prepare.check.js';

export const PREPARED_CHECKS = [sqlPrepare, protocolNamed, close] as const;
