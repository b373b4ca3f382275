/** Types for generate.mjs (imported by test/vectors.test.ts). */
/** The exact text of test/vectors/generated.txt. */
export function generateVectors(): string;
