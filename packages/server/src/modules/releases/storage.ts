import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import type { AppContext } from '../../platform/context.ts';
import { makePrivateDir } from '../../platform/private-files.ts';

/**
 * Where artifacts live (DESIGN.md section 6i): `DATA_DIR/artifacts/<storage key>` for stored files,
 * `DATA_DIR/artifacts/uploads/` for tus uploads under way. Only names this server made are ever
 * joined to these folders (a storage key: 32 hex digits; an upload id: tus's own, checked), so no
 * name a client sends can reach a file outside them.
 */
export const artifactsDir = (ctx: Pick<AppContext, 'config'>) => path.join(ctx.config.dataDir, 'artifacts');
export const uploadsDir = (ctx: Pick<AppContext, 'config'>) => path.join(artifactsDir(ctx), 'uploads');

const STORAGE_KEY = /^[0-9a-f]{32}$/;
export const UPLOAD_ID = /^[A-Za-z0-9_-]{1,100}$/;

export const newStorageKey = () => randomBytes(16).toString('hex');

/** The path of a stored artifact; throws for anything but a storage key this server made. */
export function artifactPath(ctx: Pick<AppContext, 'config'>, storageKey: string): string {
  if (!STORAGE_KEY.test(storageKey)) throw new Error('Not a storage key');
  return path.join(artifactsDir(ctx), storageKey);
}

interface HashState {
  hash: Hash;
  length: number;
}

/**
 * tus's file store that also computes each upload's SHA-256 as its bytes stream in. A resumed upload
 * continues the hash it left off; when that is not in memory (another instance took the first part,
 * the server restarted, or a cut left fewer bytes on disk than were hashed) the part on disk is
 * hashed once first. Memory stays flat: one hash state per upload under way.
 */
export class HashingFileStore extends FileStore {
  private readonly hashes = new Map<string, HashState>();

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const state = await this.stateAt(id, offset);
    let hashed = state.length;
    const hasher = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        state.hash.update(chunk);
        hashed += chunk.length;
        callback(null, chunk);
      },
    });
    readable.on('error', (error) => hasher.destroy(error));
    try {
      const written = await super.write(readable.pipe(hasher), id, offset);
      state.length = hashed;
      if (written !== hashed) this.hashes.delete(id);
      return written;
    } catch (error) {
      // A cut: keep the hash only if it covers exactly what reached the disk.
      const size = await fs.promises.stat(path.join(this.directory, id)).then((stat) => stat.size, () => -1);
      if (size === hashed) state.length = hashed;
      else this.hashes.delete(id);
      throw error;
    }
  }

  /** The upload's SHA-256 in hex once all of its bytes are in (from memory, or read from disk once). */
  async sha256(id: string, size: number): Promise<string> {
    const state = await this.stateAt(id, size);
    this.hashes.delete(id);
    return state.hash.digest('hex');
  }

  override async remove(id: string): Promise<void> {
    this.hashes.delete(id);
    await super.remove(id);
  }

  /** The file of an upload (its id checked) and its tus info file. */
  filesOf(id: string): { data: string; info: string } {
    if (!UPLOAD_ID.test(id)) throw new Error('Not an upload id');
    return { data: path.join(this.directory, id), info: path.join(this.directory, `${id}.json`) };
  }

  forget(id: string): void {
    this.hashes.delete(id);
  }

  /**
   * The uploads whose files nobody touched since `before` (ms): a dialog closed without saving, a cut
   * never resumed. A saved upload has left this folder, so whatever stays this long is abandoned.
   */
  async untouchedSince(before: number): Promise<string[]> {
    const names = await fs.promises.readdir(this.directory).catch(() => [] as string[]);
    const ids = [...new Set(names.map((name) => name.replace(/\.json$/, '')))].filter((id) => UPLOAD_ID.test(id));
    const lastTouched = async (id: string) => {
      const times = await Promise.all(Object.values(this.filesOf(id)).map((file) => fs.promises.stat(file).then((stat) => stat.mtimeMs, () => 0)));
      return Math.max(...times);
    };
    const touched = await Promise.all(ids.map(async (id) => ({ id, at: await lastTouched(id) })));
    return touched.filter((upload) => upload.at < before).map((upload) => upload.id);
  }

  private async stateAt(id: string, offset: number): Promise<HashState> {
    const known = this.hashes.get(id);
    if (known && known.length === offset) return known;
    const hash = createHash('sha256');
    if (offset > 0) {
      await pipeline(fs.createReadStream(this.filesOf(id).data, { start: 0, end: offset - 1 }), async function* (source) {
        for await (const chunk of source) hash.update(chunk as Buffer);
      });
    }
    const state = { hash, length: offset };
    this.hashes.set(id, state);
    return state;
  }
}

const stores = new WeakMap<AppContext, HashingFileStore>();

/** The upload store of an app, its folders made private on first use. */
export function uploadStore(ctx: AppContext): HashingFileStore {
  let store = stores.get(ctx);
  if (!store) {
    makePrivateDir(uploadsDir(ctx));
    store = new HashingFileStore({ directory: uploadsDir(ctx) });
    stores.set(ctx, store);
  }
  return store;
}
