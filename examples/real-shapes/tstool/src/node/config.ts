import { DEFAULT_DEV_PORT } from './constants'

export type AppType = 'spa' | 'mpa' | 'custom'

export interface ServerOptions {
  host?: string | boolean
  port?: number
  strictPort?: boolean
  open?: boolean | string
  cors?: boolean
  headers?: Record<string, string>
}

export interface UserConfig {
  root?: string
  base?: string
  appType?: AppType
  server?: ServerOptions
}

export function resolveServerOptions(
  { port = DEFAULT_DEV_PORT, strictPort = false, host = 'localhost' }: ServerOptions = {},
): ServerOptions {
  return { port, strictPort, host }
}

export function isDebug(): boolean {
  return !!process.env.TOOL_DEBUG || process.env['TOOL_DEBUG_FILTER'] !== undefined
}
