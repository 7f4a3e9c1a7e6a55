import path from 'node:path';
import { env } from './env';

/**
 * A file of the installed project (node_modules, lib/…), resolved at run time from the project root.
 * Hidden from the bundler: Turbopack rewrites `require.resolve` and literal paths into module ids or
 * tries to bundle the file (a worker script, a .wasm, traineddata), which then fails at run time.
 */
export function projectPath(...parts: string[]): string {
  return path.join(/* turbopackIgnore: true */ env().OPEN_VERIFY_ROOT ?? process.cwd(), ...parts);
}
