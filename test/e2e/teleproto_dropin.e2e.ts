/** teleproto 1.229.0 (teleproto) with installGramJS({ package: "teleproto" }) against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("drop-in", "teleproto");
