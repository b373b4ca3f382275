/**
 * Random MTProto padding from the platform CSPRNG (`crypto.getRandomValues`).
 *
 * A 4 KiB pool is cut into 32-byte slots, each handed out once (a message
 * uses at most 27 of its bytes); the whole pool is refilled when every slot
 * has been used, so no random byte ever pads two messages. The slots are
 * views made once, so taking one allocates nothing.
 *
 * @module
 */

/** The Web Crypto CSPRNG of both runtimes (typed locally: the type checkers here load different globals). */
const webCrypto = (globalThis as unknown as { crypto: { getRandomValues(array: Uint8Array): Uint8Array } }).crypto;

/** Bytes per slot: more than the longest default padding (27). */
export const PADDING_SLOT_SIZE = 32;
const SLOTS = 128;

const pool = new Uint8Array(PADDING_SLOT_SIZE * SLOTS);
const slots: Uint8Array[] = [];
for (let i = 0; i < SLOTS; i++) slots.push(pool.subarray(i * PADDING_SLOT_SIZE, (i + 1) * PADDING_SLOT_SIZE));
let nextSlot = SLOTS; // empty until first use

/** A 32-byte view of fresh random bytes that no other call receives (until the pool is refilled). */
export function randomPaddingSlot(): Uint8Array {
  if (nextSlot === SLOTS) {
    webCrypto.getRandomValues(pool);
    nextSlot = 0;
  }
  return slots[nextSlot++]!;
}

/** The shortest valid padding (12..27 bytes), the rule every host applies: from contract/rules.json. */
export { defaultPaddingLength } from "../contract.ts";
