/** mtcute 0.30.3 with its stock NodeCryptoProvider against the loopback server. */
import { mtcuteSessions } from "./mtcute_sessions.ts";

mtcuteSessions("stock");
