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
  // Dependencies point down: cli/ on top; then the flows (posts/, mcp/, then
  // media/, then session/ which they share); then api/, ui/, config/; and at the
  // bottom core/, util/ and errors.ts. cache/ (what a key's client keeps
  // between runs) sits with config/: api/ uses it, it uses nothing above.
  // The emulator stands beside them and shares only api/'s wire types. An
  // import that runs back up fails lint.
  ...layers({
    'src/batch/**': ['cli', 'mcp', 'emulator'],
    'src/posts/**': ['cli', 'batch', 'mcp', 'emulator'],
    'src/mcp/**': ['cli', 'posts', 'emulator'],
    'src/media/**': ['cli', 'posts', 'mcp', 'emulator'],
    'src/session/**': ['cli', 'posts', 'mcp', 'media', 'emulator'],
    'src/api/**': ['cli', 'posts', 'mcp', 'media', 'session', 'ui', 'emulator'],
    'src/ui/**': ['cli', 'posts', 'mcp', 'media', 'session', 'config', 'emulator'],
    'src/config/**': ['cli', 'posts', 'mcp', 'media', 'session', 'api', 'ui', 'emulator'],
    'src/journal/**': ['cli', 'posts', 'mcp', 'media', 'session', 'ui', 'emulator'],
    'src/cache/**': ['cli', 'posts', 'mcp', 'media', 'session', 'api', 'ui', 'journal', 'emulator'],
    'src/emulator/**': ['cli', 'posts', 'mcp', 'media', 'session', 'ui', 'config', 'cache'],
    'src/{core,util,time}/**': ['cli', 'posts', 'mcp', 'media', 'session', 'api', 'ui', 'config', 'journal', 'cache', 'emulator'],
    'src/errors.ts': ['cli', 'posts', 'mcp', 'media', 'session', 'api', 'ui', 'config', 'journal', 'cache', 'emulator', 'core'],
  }),
);

/**
 * Per folder, the folders above it that it must not import: static imports
 * (no-restricted-imports) and lazy ones (an import() expression).
 */
function layers(table) {
  return Object.entries(table).map(([files, above]) => {
    const message = `${files} sits below ${above.join(', ')}: dependencies point down (see "Project layout and development" in the README).`;
    const regex = `(^|/)(${above.join('|')})/`;
    return {
      files: [files.endsWith('.ts') ? files : `${files}/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns: [{ regex, message }] }],
        'no-restricted-syntax': ['error', { selector: `ImportExpression[source.value=/${regex.replace(/\//g, '\\/')}/]`, message }],
      },
    };
  });
}
