/**
 * The length rules of contract/rules.json at their boundaries. Every host
 * uses the generated copies (ts/contract.ts here, bindings/python/ext/contract.h
 * in the Python extension; contract/check.mjs fails when either differs from
 * rules.json), so the exact limit is tested once, on the rule, where the
 * hosts' own tests can only afford the side that is refused (an input of
 * 4 GiB that is accepted costs 4 GiB of output and seconds of AES).
 *
 * The expected values are worked out here from the C ABI, not read from
 * rules.json: lengths cross it as uint32_t, a packet is at most 2^31 - 1
 * bytes, auth_key_id (8) and msg_key (16) come before the ciphertext.
 */
import { describe, expect, test } from "vitest";
import {
  dataLengthFits,
  MAX_DATA_LENGTH,
  MAX_PACKET_SIZE,
  MIN_PACKET_SIZE,
  messageLengthFits,
  MTPROTO_OVERHEAD,
  packetLengthInRange,
  packetPlaintextLength,
  paddedDataLengthFits,
} from "../../ts/contract.ts";

const UINT32_MAX = 2 ** 32 - 1;
const PACKET_MAX = 2 ** 31 - 1;

describe("the limits", () => {
  test("as the C ABI has them", () => {
    expect(MAX_DATA_LENGTH).toBe(UINT32_MAX);
    expect(MAX_PACKET_SIZE).toBe(PACKET_MAX);
    expect(MTPROTO_OVERHEAD).toBe(8 + 16);
    // 24 + 32-byte header + 12 bytes of padding = 68, rounded up to 24 + 16k
    expect(MIN_PACKET_SIZE).toBe(72);
  });
});

describe("dataLengthFits: AES and hash input", () => {
  test.each([
    [0, true],
    [1, true],
    [UINT32_MAX - 1, true],
    [UINT32_MAX, true],
    [UINT32_MAX + 1, false],
    [2 ** 53, false],
  ])("%d bytes: %s", (n, fits) => expect(dataLengthFits(n)).toBe(fits));
});

describe("paddedDataLengthFits: cryptg's IGE pads to 16", () => {
  test.each([
    [0, true],
    [UINT32_MAX - 15, true], // 2^32 - 16: already whole blocks
    [UINT32_MAX - 14, false], // would pad to 2^32
    [UINT32_MAX, false],
  ])("%d bytes: %s", (n, fits) => expect(paddedDataLengthFits(n)).toBe(fits));
  test("agrees with padding then dataLengthFits, around the limit", () => {
    for (let n = UINT32_MAX - 40; n <= UINT32_MAX + 2; n++) {
      expect(paddedDataLengthFits(n)).toBe(dataLengthFits(Math.ceil(n / 16) * 16));
    }
  });
});

describe("messageLengthFits: plaintext + padding, then 24 bytes more", () => {
  test.each([
    [32 + 16, true],
    [PACKET_MAX - 24, true],
    [PACKET_MAX - 23, false],
    [PACKET_MAX, false],
  ])("%d bytes: %s", (n, fits) => expect(messageLengthFits(n)).toBe(fits));
});

describe("packetPlaintextLength: what decrypt writes", () => {
  test.each([
    [72, 48],
    [1024 + 24, 1024],
    [PACKET_MAX, PACKET_MAX - 24],
  ])("packet of %d bytes: %d", (n, plain) => expect(packetPlaintextLength(n)).toBe(plain));
});

describe("packetLengthInRange", () => {
  test.each([
    [0, false],
    [71, false],
    [72, true],
    [73, true], // a partial block: refused by the native check, not before
    [PACKET_MAX, true],
    [PACKET_MAX + 1, false],
  ])("%d bytes: %s", (n, ok) => expect(packetLengthInRange(n)).toBe(ok));
});
