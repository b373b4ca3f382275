/**
 * The C ABI of libtgcrypto (csrc/tgcrypto.h) as one runtime-neutral table.
 *
 * `bun.ts` and `deno.ts` translate these kinds into their own FFI
 * type names, so this file is the single place that must follow the header.
 *
 * @module
 */

/**
 * Kinds of C parameters used by the ABI.
 *
 * - `bytes`: `uint8_t *` / `const char *` (a Uint8Array is passed; never NULL from JS)
 * - `u32`: `uint32_t` (lengths: 32-bit on purpose, 64-bit types become BigInt in Deno)
 * - `u64`: `uint64_t` (only where 64 bits are the point: the PQ to factorize; passed as a bigint)
 * - `i32`: `int`
 * - `context`: an opaque `tg_*_ctx *` (or `tg_auth_key *`) returned by a `tg_*_new` function
 */
export type ArgKind = "bytes" | "u32" | "u64" | "i32" | "context";

/**
 * Kinds of C results used by the ABI.
 *
 * - `i32`, `u32`: `int`, `uint32_t`
 * - `void`: no result
 * - `context`: a `tg_*_ctx *` (NULL on failure)
 * - `cstring`: a static NUL-terminated `const char *` (may be NULL)
 */
export type ResultKind = "i32" | "u32" | "void" | "context" | "cstring";

/** One C function: its parameter kinds in order, and its result kind. */
export interface SymbolDefinition {
  readonly args: readonly ArgKind[];
  readonly returns: ResultKind;
}

/** Every exported C function that the TypeScript layer calls. */
export const symbols = {
  // const char *tg_strerror(int code);
  tg_strerror: { args: ["i32"], returns: "cstring" },
  // const char *tg_version(void);
  tg_version: { args: [], returns: "cstring" },

  // int tg_init(void);
  tg_init: { args: [], returns: "i32" },
  // const char *tg_backend(void);
  tg_backend: { args: [], returns: "cstring" },
  // uint32_t tg_backend_count(void);
  tg_backend_count: { args: [], returns: "u32" },
  // const char *tg_backend_name(uint32_t index);
  tg_backend_name: { args: ["u32"], returns: "cstring" },
  // int tg_backend_available(uint32_t index);
  tg_backend_available: { args: ["u32"], returns: "i32" },
  // int tg_set_backend(const char *name);   (NUL-terminated bytes)
  tg_set_backend: { args: ["bytes"], returns: "i32" },

  // int tg_ige256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
  //                       const uint8_t key[32], const uint8_t iv[32]);
  tg_ige256_encrypt: { args: ["bytes", "bytes", "u32", "bytes", "bytes"], returns: "i32" },
  // int tg_ige256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
  //                       const uint8_t key[32], const uint8_t iv[32]);
  tg_ige256_decrypt: { args: ["bytes", "bytes", "u32", "bytes", "bytes"], returns: "i32" },
  // int tg_ctr256(uint8_t *out, const uint8_t *in, uint32_t len,
  //               const uint8_t key[32], uint8_t iv[16], uint8_t state[1]);
  tg_ctr256: { args: ["bytes", "bytes", "u32", "bytes", "bytes", "bytes"], returns: "i32" },
  // int tg_cbc256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
  //                       const uint8_t key[32], uint8_t iv[16]);
  tg_cbc256_encrypt: { args: ["bytes", "bytes", "u32", "bytes", "bytes"], returns: "i32" },
  // int tg_cbc256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
  //                       const uint8_t key[32], uint8_t iv[16]);
  tg_cbc256_decrypt: { args: ["bytes", "bytes", "u32", "bytes", "bytes"], returns: "i32" },

  // tg_ctr_ctx *tg_ctr_new(const uint8_t key[32], const uint8_t iv[16], uint32_t state);
  tg_ctr_new: { args: ["bytes", "bytes", "u32"], returns: "context" },
  // int tg_ctr_update(tg_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
  tg_ctr_update: { args: ["context", "bytes", "bytes", "u32"], returns: "i32" },
  // int tg_ctr_position(const tg_ctr_ctx *ctx, uint8_t iv[16], uint8_t state[1]);
  tg_ctr_position: { args: ["context", "bytes", "bytes"], returns: "i32" },
  // void tg_ctr_free(tg_ctr_ctx *ctx);
  tg_ctr_free: { args: ["context"], returns: "void" },

  // tg_ige_ctx *tg_ige_new(const uint8_t key[32], const uint8_t iv[32], int decrypt);
  tg_ige_new: { args: ["bytes", "bytes", "i32"], returns: "context" },
  // int tg_ige_update(tg_ige_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
  tg_ige_update: { args: ["context", "bytes", "bytes", "u32"], returns: "i32" },
  // void tg_ige_free(tg_ige_ctx *ctx);
  tg_ige_free: { args: ["context"], returns: "void" },

  // tg_cbc_ctx *tg_cbc_new(const uint8_t key[32], const uint8_t iv[16], int decrypt);
  tg_cbc_new: { args: ["bytes", "bytes", "i32"], returns: "context" },
  // int tg_cbc_update(tg_cbc_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
  tg_cbc_update: { args: ["context", "bytes", "bytes", "u32"], returns: "i32" },
  // void tg_cbc_free(tg_cbc_ctx *ctx);
  tg_cbc_free: { args: ["context"], returns: "void" },

  // const char *tg_hash_engine(void);
  tg_hash_engine: { args: [], returns: "cstring" },
  // int tg_sha256(uint8_t digest[32], const uint8_t *data, uint32_t len);
  tg_sha256: { args: ["bytes", "bytes", "u32"], returns: "i32" },
  // int tg_sha256_init(uint8_t state[112]);
  tg_sha256_init: { args: ["bytes"], returns: "i32" },
  // int tg_sha256_update(uint8_t state[112], const uint8_t *data, uint32_t len);
  tg_sha256_update: { args: ["bytes", "bytes", "u32"], returns: "i32" },
  // int tg_sha256_final(uint8_t state[112], uint8_t digest[32]);
  tg_sha256_final: { args: ["bytes", "bytes"], returns: "i32" },
  // int tg_sha1(uint8_t digest[20], const uint8_t *data, uint32_t len);
  tg_sha1: { args: ["bytes", "bytes", "u32"], returns: "i32" },
  // int tg_sha1_init(uint8_t state[112]);
  tg_sha1_init: { args: ["bytes"], returns: "i32" },
  // int tg_sha1_update(uint8_t state[112], const uint8_t *data, uint32_t len);
  tg_sha1_update: { args: ["bytes", "bytes", "u32"], returns: "i32" },
  // int tg_sha1_final(uint8_t state[112], uint8_t digest[20]);
  tg_sha1_final: { args: ["bytes", "bytes"], returns: "i32" },

  // tg_auth_key *tg_auth_key_new(const uint8_t key[256]);
  tg_auth_key_new: { args: ["bytes"], returns: "context" },
  // int tg_auth_key_id(const tg_auth_key *key, uint8_t id[8]);
  tg_auth_key_id: { args: ["context", "bytes"], returns: "i32" },
  // void tg_auth_key_free(tg_auth_key *key);
  tg_auth_key_free: { args: ["context"], returns: "void" },
  // int tg_mtproto_encrypt(const tg_auth_key *key, uint32_t x, uint8_t *packet,
  //                        const uint8_t *head, uint32_t head_len,
  //                        const uint8_t *body, uint32_t body_len,
  //                        const uint8_t *padding, uint32_t padding_len);
  tg_mtproto_encrypt: {
    args: ["context", "u32", "bytes", "bytes", "u32", "bytes", "u32", "bytes", "u32"],
    returns: "i32",
  },
  // int tg_mtproto_decrypt(const tg_auth_key *key, uint32_t x, uint8_t *plaintext,
  //                        const uint8_t *packet, uint32_t packet_len);
  tg_mtproto_decrypt: { args: ["context", "u32", "bytes", "bytes", "u32"], returns: "i32" },

  // int tg_factorize_pq(uint64_t pq, uint64_t *p, uint64_t *q);   (p, q: 8 bytes each, native byte order)
  tg_factorize_pq: { args: ["u64", "bytes", "bytes"], returns: "i32" },
} as const satisfies Record<string, SymbolDefinition>;

/** The type of {@link symbols}: symbol name → its definition. */
export type Symbols = typeof symbols;

/** Name of one C function in {@link symbols}. */
export type SymbolName = keyof Symbols;

/** Return codes from tgcrypto.h (`TG_OK` and the negative `TG_ERR_*`). */
export const ErrorCode = {
  OK: 0,
  NULL: -1,
  LENGTH: -2,
  STATE: -3,
  OVERLAP: -4,
  CONTEXT: -5,
  NOMEM: -6,
  BACKEND: -7,
  UNSUPPORTED: -8,
  SECURITY: -9,
  PADDING: -10,
  SIZE: -11,
  DIRECTION: -12,
  NOT_COMPOSITE: -13,
  NO_FACTOR: -14,
} as const;

/**
 * Maps each kind of {@link symbols} to a runtime's FFI type name, keeping the
 * exact per-symbol tuple types so the loaded functions stay fully typed.
 */
export type MapDefinitions<
  ArgMap extends Record<ArgKind, string>,
  ResultMap extends Record<ResultKind, string>,
> = {
  readonly [Name in SymbolName]: {
    readonly args: MapArgs<Symbols[Name]["args"], ArgMap>;
    readonly returns: ResultMap[Symbols[Name]["returns"]];
  };
};

type MapArgs<Args extends readonly ArgKind[], ArgMap extends Record<ArgKind, string>> = {
  readonly [I in keyof Args]: Args[I] extends ArgKind ? ArgMap[Args[I]] : never;
};

/** The JS value of each argument kind; `context` values are whatever the FFI uses (C). */
interface ArgValue<C> {
  bytes: Uint8Array;
  u32: number;
  u64: bigint;
  i32: number;
  context: C;
}

/** The JS value of each result kind; C strings come back as the FFI's pointer values (P). */
interface ResultValue<C, P> {
  i32: number;
  u32: number;
  void: void;
  context: C | null;
  cstring: P;
}

/**
 * {@link symbols} as the JS functions an FFI returns for them, with contexts
 * as C and C strings as P: both loaders' symbols must fit this type, and
 * `nativeFromSymbols` turns it into the {@link Native} the API uses, so a
 * table that disagrees with `native.ts` fails type-checking.
 */
export type SymbolFunctions<C, P> = {
  readonly [Name in SymbolName]: (
    ...args: ArgValues<Symbols[Name]["args"], C>
  ) => ResultValue<C, P>[Symbols[Name]["returns"]];
};

/** A parameter-kind tuple as the tuple of its JS values (mapped over a type parameter, so it stays a tuple). */
type ArgValues<Args extends readonly ArgKind[], C> = {
  -readonly [I in keyof Args]: ArgValue<C>[Args[I] & ArgKind];
};
