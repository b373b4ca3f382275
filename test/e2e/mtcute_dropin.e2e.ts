/** mtcute 0.30.3 with nativeCrypto(new NodeCryptoProvider()) against the loopback server. */
import { mtcuteSessions } from "./mtcute_sessions.ts";

mtcuteSessions("drop-in");
