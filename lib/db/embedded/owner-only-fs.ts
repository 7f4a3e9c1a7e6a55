/**
 * The embedded engine's files, the owner's only (SECURITY.md, "File modes").
 *
 * PGlite runs PostgreSQL in WebAssembly over Emscripten's NODEFS, which ignores the process's umask: it creates
 * every file, then chmods it to the mode the C code (or PGlite's own JavaScript) asked for. PostgreSQL asks for
 * 0600 where it opens files itself, but the data directory PGlite unpacks at its first start, a restored
 * backup, and every file PostgreSQL writes through stdio (the relation cache's pg_internal.init, the statistics
 * at shutdown) arrive as 0666 or 0644: 970 world-readable files in a fresh database. This filesystem is PGlite's
 * NodeFS with the modes NODEFS creates and chmods with clamped to the owner's bits (files 0600 at most, directories 0700).
 */
import fs from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type Chmod = (target: unknown, mode: number) => void;
type EmscriptenNodeFs = {
  setattr: (arg: unknown, node: { mode: number }, attr: { mode?: number }, chmod: Chmod, ...rest: unknown[]) => void;
  node_ops: { mknod: (parent: unknown, name: string, mode: number, dev: number) => unknown };
};
type EmscriptenModule = {
  FS: { filesystems: { NODEFS: EmscriptenNodeFs & { __ownerOnly?: true } }; isDir: (mode: number) => boolean };
};

/** A mode with nothing for the group or others: a directory keeps the owner's rwx, a file the owner's rw. */
export const ownerOnlyMode = (mode: number, isDir: boolean) => (mode & ~0o777) | (mode & (isDir ? 0o700 : 0o600));

export class OwnerOnlyNodeFS extends NodeFS {
  async init(...args: Parameters<NodeFS['init']>) {
    const { emscriptenOpts } = await super.init(...args);
    fs.chmodSync(this.rootDir, 0o700); // made by NodeFS's constructor, under the process's umask
    const preRun = emscriptenOpts.preRun ?? [];
    const clamp = (mod: unknown) => {
      const m = mod as EmscriptenModule;
      const nodefs = m.FS.filesystems.NODEFS;
      if (nodefs.__ownerOnly) return;
      const { isDir } = m.FS;
      // Created (a file with 0777 | type, then chmodded; a directory with 0777) and chmodded: the owner's bits only.
      const mknod = nodefs.node_ops.mknod.bind(nodefs.node_ops);
      nodefs.node_ops.mknod = (parent, name, mode, dev) => mknod(parent, name, ownerOnlyMode(mode, isDir(mode)), dev);
      const setattr = nodefs.setattr.bind(nodefs);
      nodefs.setattr = (arg, node, attr, chmod, ...rest) =>
        setattr(arg, node, attr, (target, mode) => chmod(target, ownerOnlyMode(mode, isDir(node.mode))), ...rest);
      nodefs.__ownerOnly = true;
    };
    // Before the NodeFS mount (the first entry): nothing is written before the clamp is in place.
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [clamp, ...preRun] } };
  }
}
