/** The `prepared/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { protocolNamed } from './protocol-named.check.js';
import { sqlPrepare } from './sql-prepare.check.js';

export const PREPARED_CHECKS: readonly CheckDefinition[] = [sqlPrepare, protocolNamed];
