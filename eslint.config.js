import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/**
 * The layers of src/, top to bottom: the one list the layer rule is made from.
 * Dependencies point down: a file may import from its own layer and the layers
 * under it, never from a layer above. Entries that share a layer are peers and
 * may import one another as long as no circle forms (test/tools/house.test.ts, the one home of
 * that rule, reads the import graph and counts type-only and lazy imports too).
 * docs/architecture.md ("The layers") groups them in six bands: cli; batch;
 * the flows (posts, media, mcp); session and events; the services (api, ui, config,
 * journal, cache, emulator); the base (util, core, time, contract, errors.ts,
 * exit-codes.ts). Where today's code already points one way inside a band, the list keeps that order so it cannot turn round: media/
 * serves posts/ and mcp/; journal/ and ui/ use api/; api/ uses config/ and cache/; util/ and
 * time/ use errors.ts, which imports only exit-codes.ts (the table of exit codes: data, which
 * imports nothing). The contract (what the client and the emulator share) is in the base, under
 * both. The emulator, a program of its own, heads its band so that journal/ and ui/ cannot pull
 * it (and Fastify) into the CLI, and stands on none of that band (EMULATOR_ZONES below).
 * Every folder and file directly in src/ must have a place here.
 */
const LAYERS = [
  ['index.ts'],
  ['cli'],
  ['batch'],
  ['posts', 'mcp'],
  ['media'],
  ['session'],
  ['events'],
  ['emulator'],
  ['journal', 'ui'],
  ['api'],
  ['config', 'cache'],
  ['core', 'util', 'time', 'contract'],
  ['errors.ts'],
  ['exit-codes.ts'],
];

/**
 * The emulator is a model of the service, not a user of the client: it stands on the contract
 * (src/contract/: the wire records, the error codes, the limits and how they count, the address
 * rules, the MCP tools), which the client shares, and on nothing of the client's side of the stack.
 */
const EMULATOR_ZONES = ['api', 'config', 'cache', 'journal', 'ui'].map((folder) => ({
  target: 'src/emulator',
  from: `src/${folder}`,
  message: `src/emulator/ must not import src/${folder}/: the emulator models the service and shares only src/contract/ (and the base layer) with the client.`,
}));

/**
 * Inside src/posts/: the post pipeline (post/) sits on top of the other flows and what they
 * share, which never import it (only the CLI runs it).
 */
const POSTS_ZONES = [
  { target: 'src/posts/*.ts', from: 'src/posts/post', message: 'src/posts/post/ is the post pipeline: the other flows of src/posts/ and what they share sit under it and must not import it.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'dist.tmp-*/**', 'node_modules/**', 'coverage/**'] },
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
    ignores: ['src/cli/run/process-context.ts', 'src/emulator/cli.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'Commands read process state through the injected Context.' }],
    },
  },
  {
    files: ['bin/**/*.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Imports: the layer rule, made from LAYERS. import-x resolves each path,
    // so an import, an `export ... from`, an `import type` and an import() all
    // count. Circles are test/tools/house.test.ts's (type-only and lazy imports
    // counted, which import-x/no-cycle leaves out): that rule was a second,
    // weaker home of the same check and 60 % of lint's time.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Read .ts sources with the TypeScript parser, and resolve './x.js' to x.ts as tsc does.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layerZones(LAYERS), ...EMULATOR_ZONES, ...POSTS_ZONES] }],
    },
  },
);

/**
 * For each entry of src/, one zone per entry of a higher layer: the imports it
 * must not make. Throws when something in src/ has no place in the list, so a
 * new folder cannot slip past the rule.
 */
function layerZones(layers) {
  const placed = new Set(layers.flat());
  const unplaced = readdirSync(join(import.meta.dirname, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => e.name)
    .filter((name) => !placed.has(name));
  if (unplaced.length > 0) {
    throw new Error(`eslint.config.js: ${unplaced.map((n) => `src/${n}`).join(', ')} has no place in LAYERS; add it to the layer it belongs to.`);
  }
  const label = (entry) => (entry.endsWith('.ts') ? `src/${entry}` : `src/${entry}/`);
  return layers.flatMap((layer, depth) => layer.flatMap((entry) =>
    layers.slice(0, depth).flat().map((above) => ({
      target: `src/${entry}`,
      from: `src/${above}`,
      message: `${label(entry)} must not import ${label(above)}, a layer above it: dependencies point down (the order is LAYERS in eslint.config.js).`,
    }))));
}
