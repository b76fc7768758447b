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
  {
    // The server's routers match paths as spelled (case-sensitive, strict): a route that answers a
    // spelling its guard does not read is how `/API/traces` once skipped the token.
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/http/api-router.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='Router']",
          message:
            'Build routers with strictRouter() (http/api-router.ts): case-sensitive and strict.',
        },
        {
          selector:
            "CallExpression[callee.property.name='startsWith'][callee.object.property.name='path']",
          message: 'Decide access by the router a handler is mounted on, never by a path prefix.',
        },
      ],
    },
  },
  ...boundaryConfigs,
);
