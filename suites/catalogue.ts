/**
 * The catalogue in report order. Each entry is the check's definition; its Vitest file sits
 * beside it (`<area>/<behaviour>.test.ts`).
 */
import type { CheckDefinition } from '../engine/check.js';
import { advisorySession } from './locks/advisory-session.check.js';
import { listen } from './notify/listen.check.js';
import { sqlPrepare } from './prepared/sql-prepare.check.js';
import { setLeak } from './session/set-leak.check.js';
import { setLocal } from './session/set-local.check.js';
import { trackedParameter } from './session/tracked-parameter.check.js';
import { tempTable } from './temp/temp-table.check.js';

export const CATALOGUE: readonly CheckDefinition[] = [setLeak, trackedParameter, setLocal, tempTable, advisorySession, listen, sqlPrepare];
