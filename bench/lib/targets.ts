/**
 * The performance targets, checked against ratios measured in this run
 * (same process, same buffers). Informational: a MISS never fails the run.
 *
 * "ours" is always the default backend (the one a user gets without
 * setBackend). Each check names exactly which two calls were compared.
 */

import { existsSync, readFileSync } from "node:fs";

import { type ResultIndex, formatMBps, formatSize } from "./report.ts";
import type { TargetCheck } from "./results.ts";
import { KiB, MiB, OURS } from "./rows.ts";

/** Per-size MB/s from bench/results/openssl.json, if that file exists. */
export interface OpensslResults {
  readonly version: string;
  readonly date: string;
  /** cipher+direction ("aes-256-cbc-encrypt", ...) -> size -> MB/s */
  readonly mbPerSec: Record<string, Record<string, number>>;
}

export function readOpenssl(path: string): OpensslResults | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as OpensslResults;
  } catch {
    return undefined;
  }
}

interface Side {
  readonly label: string;
  readonly mbPerSec: number | undefined;
}

function check(id: string, description: string, required: number, ours: Side, reference: Side): TargetCheck {
  const measured = ours.mbPerSec !== undefined && reference.mbPerSec !== undefined ? ours.mbPerSec / reference.mbPerSec : null;
  const fmt = (side: Side) => `${side.label} ${side.mbPerSec === undefined ? "n/a" : `${formatMBps(side.mbPerSec)} MB/s`}`;
  return {
    id,
    description,
    required,
    measured,
    ours: fmt(ours),
    reference: fmt(reference),
    status: measured === null ? "N/A" : measured >= required ? "PASS" : "MISS",
  };
}

export function checkTargets(
  index: ResultIndex,
  runtime: string,
  defaultBackend: string,
  openssl: OpensslResults | undefined,
): TargetCheck[] {
  const ours = (op: string, size: number): Side => ({
    label: `${op}`,
    mbPerSec: index.get(`${OURS}/${defaultBackend}:${op}`, size)?.mbPerSec,
  });
  const peer = (rowId: string, label: string, size: number): Side => ({ label, mbPerSec: index.get(rowId, size)?.mbPerSec });
  const checks: TargetCheck[] = [];

  // (1) IGE at bulk sizes: as fast as our own CBC encrypt (the same serial AES chain),
  // OpenSSL's CBC encrypt, and ~4.5x mtcute's WASM.
  for (const size of [16 * KiB, MiB]) {
    for (const [op, mt] of [["ige256Encrypt", "ige256Encrypt"], ["ige256Decrypt", "ige256Decrypt"]] as const) {
      const s = formatSize(size);
      checks.push(check(`1-${op}-vs-cbc-${size}`, `(1) ${op} ${s} ≥ 0.95x own cbc256Encrypt`, 0.95, ours(op, size), ours("cbc256Encrypt", size)));
      const ossl = openssl?.mbPerSec["aes-256-cbc-encrypt"]?.[String(size)];
      checks.push(
        check(`1-${op}-vs-openssl-${size}`, `(1) ${op} ${s} ≥ 1.0x openssl speed aes-256-cbc encrypt`, 1.0, ours(op, size), {
          label: openssl ? `openssl speed (${openssl.version.split(" ").slice(0, 2).join(" ")})` : "openssl (no bench/results/openssl.json)",
          mbPerSec: ossl,
        }),
      );
      checks.push(check(`1-${op}-vs-mtcute-${size}`, `(1) ${op} ${s} ≈4.5x @mtcute/wasm (checked as ≥ 4.5x)`, 4.5, ours(op, size), peer(`@mtcute/wasm:${mt}`, `@mtcute/wasm ${mt}`, size)));
    }
  }

  // (2) CTR and CBC decrypt against the runtime's own node:crypto, same mode, a Cipher per call.
  const factor = runtime === "deno" ? 10 : 2.5;
  const nodeName = runtime === "deno" ? "Deno" : runtime === "bun" ? "Bun" : runtime;
  for (const [size, ctrOp, cbcOp] of [
    [16 * KiB, "ctr256Encrypt", "cbc256Decrypt"],
    [MiB, "ctr256EncryptInto", "cbc256DecryptInto"],
  ] as const) {
    const s = formatSize(size);
    checks.push(
      check(`2-ctr-${size}`, `(2) ${ctrOp} ${s} ≥ ${factor}x ${nodeName} node:crypto aes-256-ctr`, factor, ours(ctrOp, size), peer("node:crypto:aes-256-ctr-cipher-per-call", "node:crypto aes-256-ctr cipher/call", size)),
    );
    checks.push(
      check(`2-cbc-dec-${size}`, `(2) ${cbcOp} ${s} ≥ ${factor}x ${nodeName} node:crypto aes-256-cbc decrypt`, factor, ours(cbcOp, size), peer("node:crypto:aes-256-cbc-decrypt-cipher-per-call", "node:crypto aes-256-cbc decipher/call", size)),
    );
  }

  // (3) Small messages: calls/s against mtcute (the ratio of MB/s at equal size is the ratio of calls/s).
  for (const size of [16, 256]) {
    const s = formatSize(size);
    checks.push(check(`3-ige-enc-${size}`, `(3) ige256Encrypt ${s} ≥ 3x @mtcute/wasm ige256Encrypt`, 3, ours("ige256Encrypt", size), peer("@mtcute/wasm:ige256Encrypt", "@mtcute/wasm ige256Encrypt", size)));
    checks.push(check(`3-ige-dec-${size}`, `(3) ige256Decrypt ${s} ≥ 3x @mtcute/wasm ige256Decrypt`, 3, ours("ige256Decrypt", size), peer("@mtcute/wasm:ige256Decrypt", "@mtcute/wasm ige256Decrypt", size)));
    checks.push(
      check(`3-ctr-${size}`, `(3) ctr256Encrypt ${s} ≥ 3x @mtcute/wasm createCtr256+ctr256+freeCtr256`, 3, ours("ctr256Encrypt", size), peer("@mtcute/wasm:ctr256-new-ctx-per-call", "@mtcute/wasm ctx/call", size)),
    );
  }
  checks.push(
    check(`3-ctr-ctx-16`, "(3) CtrContext.update 16 B ≥ 5x @mtcute/wasm ctr256 on an existing ctx", 5, ours("CtrContext.update", 16), peer("@mtcute/wasm:ctr256", "@mtcute/wasm ctr256(ctx)", 16)),
  );
  // (13) Node.js through the Node-API addon: IGE ≥ 4.5x @mtcute/wasm at 16 KiB (the (1) check) and ≥ 2x at 16 B.
  // The binding-overhead target (≤ 100 ns per call) is printed by bench/node_binding.ts.
  if (runtime === "node") {
    for (const [op, mt] of [["ige256Encrypt", "ige256Encrypt"], ["ige256Decrypt", "ige256Decrypt"]] as const) {
      checks.push(check(`13-${op}-16`, `(13) ${op} 16 B ≥ 2x @mtcute/wasm (Node)`, 2, ours(op, 16), peer(`@mtcute/wasm:${mt}`, `@mtcute/wasm ${mt}`, 16)));
      checks.push(check(`13-${op}-16k`, `(13) ${op} 16 KiB ≥ 4.5x @mtcute/wasm (Node)`, 4.5, ours(op, 16 * KiB), peer(`@mtcute/wasm:${mt}`, `@mtcute/wasm ${mt}`, 16 * KiB)));
    }
  }
  return checks;
}

export function renderTargets(checks: readonly TargetCheck[], defaultBackend: string): string[] {
  const lines = ["", `== targets (tgcrypto-ffi/${defaultBackend}, the default backend; informational)`];
  for (const c of checks) {
    const measured = c.measured === null ? "n/a" : `${c.measured.toFixed(2)}x`;
    lines.push(`${c.status.padEnd(4)} ${measured.padStart(6)}  ${c.description}`);
    lines.push(`${"".padEnd(13)}${c.ours}  vs  ${c.reference}`);
  }
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  lines.push(`${count("PASS")} PASS, ${count("MISS")} MISS, ${count("N/A")} N/A   ((5) thread scaling: see bench/threads.ts)`);
  return lines;
}
