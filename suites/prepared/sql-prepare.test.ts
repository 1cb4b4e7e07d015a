import { checkTest } from '../../engine/vitest-check.js';
import { sqlPrepare } from './sql-prepare.check.js';

checkTest(sqlPrepare);
