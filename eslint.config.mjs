import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import {
  allowedImports,
  restrictedImportsFor,
  testOnlyImports,
} from './scripts/import-boundaries.mjs';

const boundaryConfigs = [
  ...Object.keys(allowedImports).map((folder) => ({
    files: [`${folder}/**/*.{ts,tsx,mts}`],
    rules: {
      'no-restricted-imports': ['error', { patterns: restrictedImportsFor(folder) }],
    },
  })),
  ...Object.keys(testOnlyImports).map((folder) => ({
    files: [`${folder}/**/*.test.{ts,tsx}`],
    rules: {
      'no-restricted-imports': ['error', { patterns: restrictedImportsFor(folder, true) }],
    },
  })),
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/build/**',
      'fixtures/**',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.js',
      '.gpu/**',
      'coverage/**',
      'scripts/bench/fixtures/**',
      '**/*.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/strict-boolean-expressions': [
        'error',
        {
          allowNullableBoolean: true,
          allowNullableString: true,
          allowNumber: true,
          allowString: true,
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      curly: ['error', 'all'],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  ...boundaryConfigs,
);
