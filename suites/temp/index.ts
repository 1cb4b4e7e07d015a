/** The `temp/*` checks, in report order. */
import { onCommitDrop } from './on-commit-drop.check.js';
import { tempTable } from './temp-table.check.js';

export const TEMP_CHECKS = [tempTable, onCommitDrop] as const;
