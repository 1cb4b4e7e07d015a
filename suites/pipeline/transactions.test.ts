import { checkTest } from '../../runner/vitest-check.js';
import { transactions } from './transactions.check.js';

checkTest(transactions);
