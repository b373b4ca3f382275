// A consumer of the packed package's types: every entry, the values users pass and get.
import { AuthKey, ige256Decrypt, ige256Encrypt, sha256, TgCryptoError } from "tgcrypto-ffi";
import { type GramJSInstallation, installGramJS, TESTED_TELEPROTO_VERSIONS, uninstallGramJS } from "tgcrypto-ffi/gramjs";
import { createAesCtr, createAesIge, nativeCrypto } from "tgcrypto-ffi/mtcute";

const key: Uint8Array = new Uint8Array(32), iv: Uint8Array = new Uint8Array(32);
const encrypted: Uint8Array = ige256Encrypt(new Uint8Array(16), key, iv);
const decrypted: Uint8Array = ige256Decrypt(encrypted, key, iv);
const digest: Uint8Array = sha256(decrypted);
const authKey = new AuthKey(new Uint8Array(256));
const installation: GramJSInstallation = installGramJS({ package: "teleproto", resolveFrom: "/srv/bot/app.js" });
const name: "telegram" | "teleproto" = installation.name;
const restored: number = uninstallGramJS();
const versions: readonly string[] = TESTED_TELEPROTO_VERSIONS;
const ige = createAesIge(key, iv), ctr = createAesCtr(key, new Uint8Array(16), true);
const provider = nativeCrypto({} as Parameters<typeof nativeCrypto>[0]);
export const used = [digest, authKey, name, restored, versions, ige, ctr, provider, TgCryptoError];
