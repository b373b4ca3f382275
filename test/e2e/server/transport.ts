/**
 * The MTProto transports, server side (core.telegram.org/mtproto/mtproto-transports):
 * abridged, intermediate, padded intermediate and full, each optionally
 * under the obfuscation layer (AES-256-CTR keyed by the client's 64-byte
 * header). The transport of a connection is recognised from its first
 * bytes, as Telegram's servers do.
 *
 * Frames are reassembled from any number of socket reads (a 512 KiB file
 * part arrives in dozens of them): {@link ServerTransport.feed} takes each
 * read and returns the frames it completed. The obfuscation layer uses
 * node:crypto's aes-256-ctr, independent of the library under test.
 */
import { createCipheriv, randomBytes, randomInt } from "node:crypto";

/** Bytes received and not yet consumed, as a list of chunks (no copy until a frame is taken). */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  #head = 0; // consumed bytes of #chunks[0]
  available = 0;
  /** How many socket reads the last {@link take} drew from. */
  lastTakeChunks = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.available += chunk.length;
  }

  /** The byte at `index` (0 = the next unread byte). */
  at(index: number): number {
    let i = index + this.#head;
    for (const chunk of this.#chunks) {
      if (i < chunk.length) return chunk[i]!;
      i -= chunk.length;
    }
    throw new RangeError("ByteQueue.at: past the end");
  }

  /** The next `n` bytes without consuming them (a copy). */
  peek(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.at(i);
    return out;
  }

  uint32le(index: number): number {
    return (this.at(index) | (this.at(index + 1) << 8) | (this.at(index + 2) << 16) | (this.at(index + 3) << 24)) >>> 0;
  }

  /** Consumes and returns the next `n` bytes (a view when they lie in one chunk). */
  take(n: number): Uint8Array {
    if (n > this.available) throw new RangeError("ByteQueue.take: not enough bytes");
    this.available -= n;
    const first = this.#chunks[0];
    if (first !== undefined && first.length - this.#head >= n) {
      const out = first.subarray(this.#head, this.#head + n);
      this.#head += n;
      if (this.#head === first.length) this.#chunks.shift(), this.#head = 0;
      this.lastTakeChunks = 1;
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    this.lastTakeChunks = 0;
    while (filled < n) {
      const chunk = this.#chunks[0]!;
      const part = Math.min(chunk.length - this.#head, n - filled);
      out.set(chunk.subarray(this.#head, this.#head + part), filled);
      filled += part;
      this.#head += part;
      this.lastTakeChunks++;
      if (this.#head === chunk.length) this.#chunks.shift(), this.#head = 0;
    }
    return out;
  }

  skip(n: number): void {
    this.take(n);
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3), as the full transport uses. */
export function crc32(...parts: Uint8Array[]): number {
  let crc = 0xffffffff;
  for (const data of parts) for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export class TransportError extends Error {}

/** One framing: takes frames out of a queue, wraps frames to send. */
interface Framing {
  readonly name: "abridged" | "intermediate" | "padded intermediate" | "full";
  /** The next complete frame, or null while it is incomplete. */
  decode(queue: ByteQueue): Uint8Array | null;
  encode(frame: Uint8Array): Uint8Array;
}

class Abridged implements Framing {
  readonly name = "abridged";
  decode(queue: ByteQueue): Uint8Array | null {
    if (queue.available < 1) return null;
    const first = queue.at(0) & 0x7f; // 0x80: the client asks for a quick ack (not sent by this server)
    let header = 1, words = first;
    if (first === 0x7f) {
      if (queue.available < 4) return null;
      header = 4;
      words = queue.at(1) | (queue.at(2) << 8) | (queue.at(3) << 16);
    }
    if (queue.available < header + 4 * words) return null;
    queue.skip(header);
    return queue.take(4 * words);
  }
  encode(frame: Uint8Array): Uint8Array {
    if (frame.length % 4 !== 0) throw new TransportError("abridged: frame length not a multiple of 4");
    const words = frame.length / 4;
    const header = words < 0x7f ? Uint8Array.of(words) : Uint8Array.of(0x7f, words & 0xff, (words >> 8) & 0xff, (words >> 16) & 0xff);
    const out = new Uint8Array(header.length + frame.length);
    out.set(header), out.set(frame, header.length);
    return out;
  }
}

class Intermediate implements Framing {
  readonly name: "intermediate" | "padded intermediate" = "intermediate";
  decode(queue: ByteQueue): Uint8Array | null {
    if (queue.available < 4) return null;
    const length = queue.uint32le(0) & 0x7fffffff; // top bit: quick ack requested
    if (queue.available < 4 + length) return null;
    queue.skip(4);
    return queue.take(length);
  }
  encode(frame: Uint8Array): Uint8Array {
    const out = new Uint8Array(4 + frame.length);
    new DataView(out.buffer).setUint32(0, frame.length, true);
    out.set(frame, 4);
    return out;
  }
}

/** Padded intermediate: 0..15 random bytes after each frame, which the receiver drops. */
class PaddedIntermediate extends Intermediate {
  override readonly name = "padded intermediate";
  override decode(queue: ByteQueue): Uint8Array | null {
    const padded = super.decode(queue);
    if (padded === null) return null;
    return padded.subarray(0, mtprotoLength(padded));
  }
  override encode(frame: Uint8Array): Uint8Array {
    const padding = randomBytes(randomInt(16));
    const out = new Uint8Array(4 + frame.length + padding.length);
    new DataView(out.buffer).setUint32(0, frame.length + padding.length, true);
    out.set(frame, 4), out.set(padding, 4 + frame.length);
    return out;
  }
}

/**
 * The MTProto message at the start of a padded frame: an unencrypted
 * message says its length (20 + message_data_length); an encrypted one is
 * 24 + 16k bytes, and the padding is shorter than 16.
 */
function mtprotoLength(padded: Uint8Array): number {
  if (padded.length < 8) return padded.length;
  const view = new DataView(padded.buffer, padded.byteOffset, padded.length);
  if (view.getBigUint64(0, true) === 0n) {
    if (padded.length < 20) return padded.length;
    return Math.min(padded.length, 20 + view.getUint32(16, true));
  }
  return padded.length - ((padded.length - 8) % 16);
}

class Full implements Framing {
  readonly name = "full";
  #receiveSeq = 0;
  #sendSeq = 0;
  decode(queue: ByteQueue): Uint8Array | null {
    if (queue.available < 4) return null;
    const length = queue.uint32le(0);
    if (length < 12 || length > 16 << 20) throw new TransportError(`full: bad packet length ${length}`);
    if (queue.available < length) return null;
    const packet = queue.take(length);
    const view = new DataView(packet.buffer, packet.byteOffset, packet.length);
    const seq = view.getUint32(4, true);
    if (seq !== this.#receiveSeq) throw new TransportError(`full: sequence number ${seq}, expected ${this.#receiveSeq}`);
    this.#receiveSeq++;
    const crc = view.getUint32(length - 4, true);
    if (crc !== crc32(packet.subarray(0, length - 4))) throw new TransportError("full: CRC32 mismatch");
    return packet.subarray(8, length - 4);
  }
  encode(frame: Uint8Array): Uint8Array {
    const out = new Uint8Array(frame.length + 12);
    const view = new DataView(out.buffer);
    view.setUint32(0, out.length, true);
    view.setUint32(4, this.#sendSeq++, true);
    out.set(frame, 8);
    view.setUint32(out.length - 4, crc32(out.subarray(0, out.length - 4)), true);
    return out;
  }
}

const TAGS: Record<string, () => Framing> = {
  efefefef: () => new Abridged(),
  eeeeeeee: () => new Intermediate(),
  dddddddd: () => new PaddedIntermediate(),
};

interface Stream {
  update(data: Uint8Array): Uint8Array;
}

function ctr(key: Uint8Array, iv: Uint8Array): Stream {
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  return { update: (data) => new Uint8Array(cipher.update(data)) };
}

/** The transport of one connection: detects the protocol, then frames in both directions. */
export class ServerTransport {
  #raw = new ByteQueue(); // bytes as received (before detection, and always for plain transports)
  #plain: ByteQueue | null = null; // deobfuscated bytes (obfuscated transports)
  #framing: Framing | null = null;
  #decryptor: Stream | null = null;
  #encryptor: Stream | null = null;
  /** e.g. "full", "obfuscated abridged"; undefined until recognised. */
  name: string | undefined;
  /** The DC id from the obfuscated header (0 when absent). */
  dcId = 0;
  /** Frames that were reassembled from more than one socket read. */
  framesAcrossReads = 0;
  largestFrame = 0;

  /** Takes one socket read; returns the frames it completed (possibly none). */
  feed(chunk: Uint8Array): Uint8Array[] {
    // Copied into a plain Uint8Array: a runtime may reuse its read buffer once the data event returns (and
    // partial frames wait here), and a Buffer's slice() would be a view, not a copy.
    if (this.#decryptor !== null) this.#plain!.push(this.#decryptor.update(chunk));
    else this.#raw.push(new Uint8Array(chunk));
    if (this.#framing === null && !this.#detect()) return [];
    const queue = this.#plain ?? this.#raw;
    const frames: Uint8Array[] = [];
    for (;;) {
      const frame = this.#framing!.decode(queue);
      if (frame === null) break;
      if (queue.lastTakeChunks > 1) this.framesAcrossReads++;
      this.largestFrame = Math.max(this.largestFrame, frame.length);
      frames.push(frame);
    }
    return frames;
  }

  /** The bytes to write for one frame. */
  encode(frame: Uint8Array): Uint8Array {
    if (this.#framing === null) throw new TransportError("transport not recognised yet");
    const bytes = this.#framing.encode(frame);
    return this.#encryptor ? this.#encryptor.update(bytes) : bytes;
  }

  /** A transport error (e.g. -404: unknown auth key) as the client expects it: a 4-byte frame. */
  encodeError(code: number): Uint8Array {
    const frame = new Uint8Array(4);
    new DataView(frame.buffer).setInt32(0, code, true);
    return this.encode(frame);
  }

  #detect(): boolean {
    const raw = this.#raw;
    if (raw.available < 1) return false;
    if (raw.at(0) === 0xef) {
      raw.skip(1);
      return this.#use(new Abridged(), "abridged");
    }
    if (raw.available < 8) return false;
    const first = raw.uint32le(0);
    if (first === 0xeeeeeeee) {
      raw.skip(4);
      return this.#use(new Intermediate(), "intermediate");
    }
    if (first === 0xdddddddd) {
      raw.skip(4);
      return this.#use(new PaddedIntermediate(), "padded intermediate");
    }
    if (raw.uint32le(4) === 0) return this.#use(new Full(), "full"); // the full transport's first seq_no
    if (raw.available < 64) return false;
    // Obfuscated: a random 64-byte header; the client encrypts with header[8..40) / [40..56), the server
    // with the reversed bytes 8..56; the tag at 56 (after decryption) names the framing inside.
    const header = raw.take(64);
    const reversed = header.slice(8, 56).reverse(); // a copy (the queue holds plain Uint8Arrays)
    this.#decryptor = ctr(header.subarray(8, 40), header.subarray(40, 56));
    this.#encryptor = ctr(reversed.subarray(0, 32), reversed.subarray(32, 48));
    const decrypted = this.#decryptor.update(header);
    const tag = Array.from(decrypted.subarray(56, 60), (b) => b.toString(16).padStart(2, "0")).join("");
    const framing = TAGS[tag];
    if (framing === undefined) throw new TransportError(`obfuscated: unknown protocol tag ${tag}`);
    this.dcId = new DataView(decrypted.buffer, decrypted.byteOffset).getInt16(60, true);
    this.#plain = new ByteQueue();
    const rest = raw.available > 0 ? raw.take(raw.available) : new Uint8Array(0);
    this.#plain.push(this.#decryptor.update(rest));
    const inner = framing();
    return this.#use(inner, `obfuscated ${inner.name}`);
  }

  #use(framing: Framing, name: string): boolean {
    this.#framing = framing;
    this.name = name;
    return true;
  }
}
