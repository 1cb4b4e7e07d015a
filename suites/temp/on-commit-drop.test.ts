import { checkTest } from '../../engine/vitest-check.js';
import { onCommitDrop } from './on-commit-drop.check.js';

checkTest(onCommitDrop);
