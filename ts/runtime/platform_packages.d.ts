/**
 * Types of the per-platform npm packages (tgcrypto-ffi-<platform>, made by
 * scripts/pack.mjs) that `locate.ts` imports: each default-exports the path
 * of the shared library it contains. They are not installed in the repo.
 */
declare module "tgcrypto-ffi-*" {
  const libraryPath: string;
  export default libraryPath;
}
