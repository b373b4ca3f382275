/** Parser for the test/vectors/*.txt files (format: test/vectors/README.md). */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Mode = "ecb" | "cbc" | "ctr" | "ige";

export interface Vector {
  file: string;
  line: number; // line of the case's first field, for failure messages
  mode: Mode;
  key: Uint8Array;
  iv?: Uint8Array;
  state: number; // ctr only; 0 when absent
  plaintext: Uint8Array;
  ciphertext: Uint8Array;
  ivAfter?: Uint8Array;
  stateAfter?: number;
}

const FIELDS = new Set(["key", "iv", "state", "plaintext", "ciphertext", "iv_after", "state_after"]);
const MODES = new Set(["ecb", "cbc", "ctr", "ige"]);

export const VECTOR_DIR = fileURLToPath(new URL("../vectors/", import.meta.url));
export const VECTOR_FILES = ["fips197.txt", "sp800_38a.txt", "generated.txt"] as const;

export function hexToBytes(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new Error(`not lowercase hex of even length: ${hex.slice(0, 40)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Parses one file's text strictly: unknown fields, duplicates and bad sizes throw. */
export function parseVectors(text: string, file = "<text>"): Vector[] {
  const out: Vector[] = [];
  let mode: Mode | undefined;
  let fields: Map<string, string> | undefined;
  let start = 0;
  const close = () => {
    if (!fields) return;
    const where = `${file}:${start}`;
    if (!mode) throw new Error(`${where}: case before any [mode] line`);
    const need = ["key", "plaintext", "ciphertext"];
    if (mode !== "ecb") need.push("iv");
    if (mode === "ctr") need.push("iv_after", "state_after");
    if (mode === "cbc") need.push("iv_after");
    for (const n of need) if (!fields.has(n)) throw new Error(`${where}: missing ${n}`);
    const allowed: Record<Mode, string[]> = {
      ecb: ["key", "plaintext", "ciphertext"],
      ige: ["key", "iv", "plaintext", "ciphertext"],
      cbc: ["key", "iv", "plaintext", "ciphertext", "iv_after"],
      ctr: ["key", "iv", "state", "plaintext", "ciphertext", "iv_after", "state_after"],
    };
    for (const n of fields.keys()) if (!allowed[mode].includes(n)) throw new Error(`${where}: field ${n} not allowed in [${mode}]`);
    const get = (n: string) => hexToBytes(fields!.get(n)!);
    const oneByte = (n: string) => {
      const b = get(n);
      if (b.length !== 1 || b[0] > 15) throw new Error(`${where}: ${n} must be one byte 00..0f`);
      return b[0];
    };
    const v: Vector = {
      file,
      line: start,
      mode,
      key: get("key"),
      iv: fields.has("iv") ? get("iv") : undefined,
      state: fields.has("state") ? oneByte("state") : 0,
      plaintext: get("plaintext"),
      ciphertext: get("ciphertext"),
      ivAfter: fields.has("iv_after") ? get("iv_after") : undefined,
      stateAfter: fields.has("state_after") ? oneByte("state_after") : undefined,
    };
    if (v.key.length !== 32) throw new Error(`${where}: key must be 32 bytes`);
    const ivLen = mode === "ige" ? 32 : mode === "ecb" ? undefined : 16;
    if (ivLen !== undefined && v.iv!.length !== ivLen) throw new Error(`${where}: iv must be ${ivLen} bytes`);
    if (v.ivAfter && v.ivAfter.length !== 16) throw new Error(`${where}: iv_after must be 16 bytes`);
    if (v.plaintext.length === 0 || v.plaintext.length !== v.ciphertext.length) {
      throw new Error(`${where}: plaintext/ciphertext must be non-empty and of equal length`);
    }
    if (mode !== "ctr" && v.plaintext.length % 16 !== 0) throw new Error(`${where}: length must be a multiple of 16`);
    out.push(v);
    fields = undefined;
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    if (line.startsWith("#")) continue;
    if (line.trim() === "") {
      close();
      continue;
    }
    const m = /^\[([a-z]+)\]$/.exec(line);
    if (m) {
      if (fields) throw new Error(`${file}:${i + 1}: [mode] line inside a case`);
      if (!MODES.has(m[1])) throw new Error(`${file}:${i + 1}: unknown mode ${m[1]}`);
      mode = m[1] as Mode;
      continue;
    }
    const f = /^([a-z_]+) = ([0-9a-f]*)$/.exec(line);
    if (!f) throw new Error(`${file}:${i + 1}: cannot parse line: ${line.slice(0, 60)}`);
    if (!FIELDS.has(f[1])) throw new Error(`${file}:${i + 1}: unknown field ${f[1]}`);
    if (!fields) {
      fields = new Map();
      start = i + 1;
    }
    if (fields.has(f[1])) throw new Error(`${file}:${i + 1}: duplicate field ${f[1]}`);
    fields.set(f[1], f[2]);
  }
  close();
  return out;
}

export function readVectorText(file: string): string {
  return readFileSync(VECTOR_DIR + file, "utf8");
}

export function loadVectors(file: string): Vector[] {
  return parseVectors(readVectorText(file), file);
}

export function loadAllVectors(): Vector[] {
  return VECTOR_FILES.flatMap((f) => loadVectors(f));
}
