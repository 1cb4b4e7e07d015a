// pooltest's checks as one project of your own Vitest setup.
// Target and expectations come from the environment (POOLTEST_TARGET, POOLTEST_PROFILE or
// POOLTEST_EXPECT, ...) or from pooltestProject({ target, profile, ... }).
import { defineConfig } from 'vitest/config';
import { pooltestProject } from 'pooltest/vitest';

export default defineConfig({
  test: {
    projects: [
      pooltestProject(),
      // your own tests stay a project of their own, e.g.:
      // { test: { name: 'unit', include: ['test/**/*.test.js'] } },
    ],
  },
});
