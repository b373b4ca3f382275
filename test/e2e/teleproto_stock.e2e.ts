/** Stock teleproto 1.229.0 (teleproto) against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("stock", "teleproto");
