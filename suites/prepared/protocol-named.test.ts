import { checkTest } from '../../runner/vitest-check.js';
import { protocolNamed } from './protocol-named.check.js';

checkTest(protocolNamed);
