import { checkTest } from '../../engine/vitest-check.js';
import { advisorySession } from './advisory-session.check.js';

checkTest(advisorySession);
