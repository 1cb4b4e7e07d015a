import { checkTest } from '../../runner/vitest-check.js';
import { tempTable } from './temp-table.check.js';

checkTest(tempTable);
