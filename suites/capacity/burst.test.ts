import { checkTest } from '../../engine/vitest-check.js';
import { burst } from './burst.check.js';

checkTest(burst);
