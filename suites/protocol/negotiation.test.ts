import { checkTest } from '../../runner/vitest-check.js';
import { negotiation } from './negotiation.check.js';

checkTest(negotiation);
