import { checkTest } from '../../engine/vitest-check.js';
import { tempTable } from './temp-table.check.js';

checkTest(tempTable);
