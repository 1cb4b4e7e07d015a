import { checkTest } from '../../runner/vitest-check.js';
import { transactionBlock } from './transaction-block.check.js';

checkTest(transactionBlock);
