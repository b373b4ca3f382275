// Types of generate.mjs for the TypeScript tests (test/contract/).

/** The repository root. */
export const ROOT: string;
/** Every generated file: [path relative to root, its content]. */
export function generatedFiles(root?: string, header?: string): [string, string][];
