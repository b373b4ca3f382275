// Types of check.mjs for the TypeScript tests (test/contract/).

/** Every drift of the tree at `root` against `header` (default: its own csrc/tgcrypto.h); empty when in step. */
export function contractDrifts(root?: string, header?: string): string[];
