import { checkTest } from '../../runner/vitest-check.js';
import { advisorySession } from './advisory-session.check.js';

checkTest(advisorySession);
