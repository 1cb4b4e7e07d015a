import { checkTest } from '../../runner/vitest-check.js';
import { advisoryXact } from './advisory-xact.check.js';

checkTest(advisoryXact);
