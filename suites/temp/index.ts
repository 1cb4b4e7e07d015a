/** The `temp/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { onCommitDrop } from './on-commit-drop.check.js';
import { tempTable } from './temp-table.check.js';

export const TEMP_CHECKS: readonly CheckDefinition[] = [tempTable, onCommitDrop];
