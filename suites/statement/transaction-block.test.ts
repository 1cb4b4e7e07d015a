import { checkTest } from '../../engine/vitest-check.js';
import { transactionBlock } from './transaction-block.check.js';

checkTest(transactionBlock);
