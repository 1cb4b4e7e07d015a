import { checkTest } from '../../engine/vitest-check.js';
import { advisoryXact } from './advisory-xact.check.js';

checkTest(advisoryXact);
