/**
 * The planted bug of test/hostile/asan.sh's self-test: tg_sha256 called
 * through Deno.dlopen on a 16-byte buffer with the length given on the
 * command line (16: honest; 64: 48 bytes read past the buffer, which the
 * ASan build must report).
 *
 *   TGCRYPTO_LIB=<asan build> LD_PRELOAD=<libclang_rt.asan> deno run -A test/hostile/asan_planted.ts 64
 */
const deno = (globalThis as unknown as {
  Deno: {
    args: string[];
    env: { get(name: string): string | undefined };
    dlopen(path: string, symbols: Record<string, { parameters: string[]; result: string }>): {
      symbols: { tg_sha256(digest: Uint8Array, data: Uint8Array, length: number): number };
    };
  };
}).Deno;
const library = deno.dlopen(deno.env.get("TGCRYPTO_LIB")!, {
  tg_sha256: { parameters: ["buffer", "buffer", "u32"], result: "i32" },
});
const length = Number(deno.args[0]);
const code = library.symbols.tg_sha256(new Uint8Array(32), new Uint8Array(16), length);
console.log(`tg_sha256 over ${length} bytes of a 16-byte buffer returned ${code}`);
