import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly',
        setImmediate: 'readonly', structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': ['error',
        { object: 'process', property: 'exit', message: 'Only bin/vidpub.js calls process.exit; return an exit code from main().' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/process-context.ts', 'src/emulator/cli.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'Commands read process state through the injected Context.' }],
    },
  },
  {
    files: ['bin/**/*.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
