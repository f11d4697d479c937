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
    },
  },
  {
    files: ['src/config.ts', 'test/**', 'scripts/**', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
)
