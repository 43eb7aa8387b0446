export const DEFAULT_MAIN_FIELDS = ['browser', 'module', 'jsnext:main', 'jsnext']

export const DEFAULT_EXTENSIONS: string[] = [
  '.mjs',
  '.js',
  '.mts',
  '.ts',
  '.jsx',
  '.tsx',
  '.json',
]

export const DEFAULT_DEV_PORT = 5173

export const DEFAULT_PREVIEW_PORT = 4173

export const DEFAULT_ASSETS_INLINE_LIMIT = 4096
