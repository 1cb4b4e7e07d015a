import { checkTest } from '../../runner/vitest-check.js';
import { sqlPrepare } from './sql-prepare.check.js';

checkTest(sqlPrepare);
