/** teleproto 214.1.7 (teleproto-latest) with installGramJS({ package: "teleproto-latest" }) against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("drop-in", "teleproto-latest");
