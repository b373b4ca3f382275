/** Stock teleproto 214.1.7 (teleproto-latest) against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("stock", "teleproto-latest");
