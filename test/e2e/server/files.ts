/**
 * The server's file store: the parts of upload.saveFilePart /
 * upload.saveBigFilePart by file_id, with Telegram's limits on part sizes,
 * and the uploaded file as upload.getFile serves it. (A real server turns an
 * InputFile into a document with messages.sendMedia; this fixture serves a
 * file back as the document whose id is the upload's file_id.)
 */

/** Telegram's upload limits: parts up to 512 KiB, at most 4000 parts (8000 for premium users). */
export const MAX_PART_SIZE = 512 * 1024;
export const MAX_PARTS = 4000;

/** An RPC error, as the methods raise it. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly text: string;
  constructor(code: number, text: string) {
    super(`${code} ${text}`);
    this.code = code;
    this.text = text;
  }
}

interface Upload {
  readonly big: boolean;
  totalParts?: number;
  readonly parts: Map<number, Uint8Array>;
  assembled?: Uint8Array;
}

export class FileStore {
  readonly #uploads = new Map<bigint, Upload>();

  /** upload.saveFilePart / upload.saveBigFilePart. */
  savePart(fileId: bigint, part: number, bytes: Uint8Array, totalParts?: number): void {
    const big = totalParts !== undefined;
    if (part < 0 || part >= MAX_PARTS) throw new RpcFailure(400, "FILE_PART_INVALID");
    if (bytes.length > MAX_PART_SIZE) throw new RpcFailure(400, "FILE_PART_TOO_BIG");
    if (bytes.length === 0) throw new RpcFailure(400, "FILE_PART_EMPTY");
    // file_total_parts may be -1 (not known yet: mtcute streaming a file of unknown size) until the last part.
    const known = big && totalParts !== -1;
    if (known && (totalParts! < 1 || totalParts! > MAX_PARTS || part >= totalParts!)) throw new RpcFailure(400, "FILE_PARTS_INVALID");
    // Every part but the last: a multiple of 1 KiB dividing 512 KiB.
    const isLast = known && part === totalParts! - 1;
    if (!isLast && big && (bytes.length % 1024 !== 0 || MAX_PART_SIZE % bytes.length !== 0)) {
      throw new RpcFailure(400, "FILE_PART_SIZE_INVALID");
    }
    let upload = this.#uploads.get(fileId);
    if (upload === undefined) this.#uploads.set(fileId, upload = { big, parts: new Map() });
    if (upload.big !== big) throw new RpcFailure(400, "FILE_PART_INVALID");
    if (known) {
      if (upload.totalParts !== undefined && upload.totalParts !== totalParts) throw new RpcFailure(400, "FILE_PARTS_INVALID");
      if ([...upload.parts.keys()].some((p) => p >= totalParts!)) throw new RpcFailure(400, "FILE_PARTS_INVALID");
      upload.totalParts = totalParts;
    }
    upload.parts.set(part, bytes.slice());
    upload.assembled = undefined;
  }

  /** The uploaded file: all its parts, in order (none missing). */
  file(fileId: bigint): Uint8Array {
    const upload = this.#uploads.get(fileId);
    if (upload === undefined) throw new RpcFailure(400, "FILE_ID_INVALID");
    if (upload.assembled) return upload.assembled;
    const count = upload.totalParts ?? Math.max(...upload.parts.keys()) + 1;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const part = upload.parts.get(i);
      if (part === undefined) throw new RpcFailure(400, "FILE_PARTS_INVALID");
      parts.push(part);
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) out.set(part, offset), offset += part.length;
    upload.assembled = out;
    return out;
  }

  /** Drops an upload (a long-running server keeps its memory bounded). */
  forget(fileId: bigint): boolean {
    return this.#uploads.delete(fileId);
  }

  /** Whether a file of this id was uploaded, and how (for the tests). */
  describe(fileId: bigint): { big: boolean; parts: number; totalParts?: number; size: number } | undefined {
    const upload = this.#uploads.get(fileId);
    if (upload === undefined) return undefined;
    const size = [...upload.parts.values()].reduce((n, p) => n + p.length, 0);
    return { big: upload.big, parts: upload.parts.size, totalParts: upload.totalParts, size };
  }

  /**
   * upload.getFile's slice, with Telegram's rules for a non-precise request:
   * offset a multiple of 4 KiB, limit a multiple of 4 KiB dividing 1 MiB, and
   * the slice inside one 1 MiB block (precise: multiples of 1 KiB, up to 1 MiB).
   */
  slice(fileId: bigint, offset: bigint, limit: number, precise: boolean): Uint8Array {
    const unit = precise ? 1024 : 4096;
    if (limit <= 0 || limit > 1 << 20 || limit % unit !== 0 || (!precise && (1 << 20) % limit !== 0)) throw new RpcFailure(400, "LIMIT_INVALID");
    if (offset < 0n || offset % BigInt(unit) !== 0n) throw new RpcFailure(400, "OFFSET_INVALID");
    const start = Number(offset);
    if (!precise && Math.floor(start / (1 << 20)) !== Math.floor((start + limit - 1) / (1 << 20))) throw new RpcFailure(400, "OFFSET_INVALID");
    const file = this.file(fileId);
    return file.subarray(Math.min(start, file.length), Math.min(start + limit, file.length));
  }
}
