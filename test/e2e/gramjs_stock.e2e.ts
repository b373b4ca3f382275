/** Stock GramJS (telegram 2.26.22) against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("stock");
