/** GramJS (telegram 2.26.22) with installGramJS() against the loopback server. */
import { gramjsSessions } from "./gramjs_sessions.ts";

gramjsSessions("drop-in");
