import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    environment: 'node',
    include: [
      'src/**/*.test.ts',
      '*.test.ts',
      'profile-examples/*.test.ts',
      'gen/*.test.ts',
      'bench/*.test.ts',
      'gpu/*.test.ts',
    ],
  },
});
