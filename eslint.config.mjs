// One flat config for the whole repository.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'client/dist/', 'client/src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      // Configuration is read and validated in one place (src/config.ts); everything else receives a typed Config.
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through src/config.ts (loadConfig), never process.env directly.',
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Prettier wraps code at 120 but leaves long strings and comments alone: prose is split into pieces.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
      // `as unknown as` silences the compiler instead of describing the type: augment, wrap or guard instead.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression.expression > TSUnknownKeyword.typeAnnotation',
          message: 'No `as unknown as`: describe the type (module augmentation, a typed wrapper or a type guard).',
        },
      ],
    },
  },
  {
    // One concern per file: a source file that grows past this is split.
    files: ['src/**'],
    rules: { 'max-lines': ['error', { max: 250 }] },
  },
  {
    files: ['src/config.ts', 'test/**', 'scripts/**', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
)
