/**
 * The C ABI of libtgcrypto (csrc/tgcrypto.h) as one runtime-neutral table,
 * and the types that tie it to the loaders and to `native.ts`.
 *
 * The table itself is generated from the header (`abi_table.ts`, written by
 * contract/generate.mjs; `npm test` fails when it is stale). `bun.ts` and
 * `deno.ts` translate its kinds into their own FFI type names; `node.ts`
 * loads the addon's function of each name; contract/check.mjs checks the
 * addon's and the Python extension's tables against the header.
 *
 * @module
 */

import { ErrorCode, symbolTable } from "./abi_table.ts";

/**
 * Kinds of C parameters used by the ABI.
 *
 * - `bytes`: `uint8_t *`, `const char *` or `uint64_t *` (a Uint8Array is passed; never NULL from JS)
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

/**
 * Every exported C function, generated from the header (abi_table.ts), typed
 * against the kinds above: a kind the loaders cannot map fails type-checking.
 */
export const symbols = symbolTable satisfies Record<string, SymbolDefinition>;

/** The type of {@link symbols}: symbol name → its definition. */
export type Symbols = typeof symbols;

/** Name of one C function in {@link symbols}. */
export type SymbolName = keyof Symbols;

/** Return codes from tgcrypto.h (`TG_OK` and the negative `TG_ERR_*`), generated from the header. */
export { ErrorCode };

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
