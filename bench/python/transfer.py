"""A 64 MiB transfer's client CPU per MiB, Python clients against the loopback server
(test/e2e/server/main.ts under Bun, a process of its own): Telethon 1.45.0 (on cryptg) and
Pyrogram 2.0.106 (on TgCrypto), each stock and with tgcrypto_ffi.install(), 64 MiB up
(saveBigFilePart) and the same 64 MiB down (upload.getFile, 512 KiB parts), over the full
transport (Telethon's obfuscated CTR without install() is pure-Python pyaes: the e2e suite
shows it, at 3 MiB). The figure is the client process's CPU time (time.process_time(), all
its threads) over upload + download, per MiB moved (128 MiB each run), the fastest of
ROUNDS runs (3, BENCH_QUICK=1: 1 run of 16 MiB). Runs the e2e session scripts
(test/e2e/python/*_session.py, E2E_PY_SIZE) through drive.py's helpers; the SHA-256 of both
directions is checked as there. Writes bench/results/python-transfer.json.

    bench/python/clients.sh transfer       (its venv: both clients, both accelerators)
"""
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "e2e" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import drive  # noqa: E402
from bench import cpu_model  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 1 if QUICK else 3))
SIZE = (16 if QUICK else 64) << 20
OUT = REPO / "bench" / "results" / "python-transfer.json"
CLIENTS = (("telethon", "full"), ("pyrogram", "full"))


def main():
    os.environ["E2E_PY_SIZE"] = str(SIZE)
    os.environ.setdefault("E2E_PY_SESSION_TIMEOUT", "900")
    server = drive.Server(os.environ.get("BENCH_SERVER", str(REPO / "node_modules/.bin/bun") + " " +
                                         str(REPO / "test/e2e/server/main.ts")))
    rows = []
    mib = 2 * SIZE / (1 << 20)
    print(f"CPU: {cpu_model()}; load average {os.getloadavg()[0]:.2f}; Python {sys.version.split()[0]}; "
          f"{SIZE >> 20} MiB up + down, best of {ROUNDS}")
    try:
        for client, transport in CLIENTS:
            best = {}
            for _ in range(ROUNDS):
                for mode in ("stock", "install"):
                    out, log, why = drive.run_session(server, client, sys.executable, mode, transport)
                    if why is not None:
                        raise SystemExit(f"{client} {mode}: {why}\n" + "\n".join(log))
                    stored = server.ask(f"file {out['file_id']}")
                    server.ask(f"forget {out['file_id']}")
                    if not (stored.get("sha256") == out["sha256"] == out["download_sha256"] and stored.get("size") == SIZE):
                        raise SystemExit(f"{client} {mode}: the transfer's SHA-256 differs: {stored} {out}")
                    if mode not in best or out["transfer_cpu_s"] < best[mode]["transfer_cpu_s"]:
                        best[mode] = out
            row = {"client": client, "transport": transport, "mib_moved": mib}
            for mode in ("stock", "install"):
                row[f"{mode}_cpu_ms_per_mib"] = best[mode]["transfer_cpu_s"] * 1000 / mib
                row[f"{mode}_wall_s"] = best[mode]["transfer_wall_s"]
            row["ratio"] = row["stock_cpu_ms_per_mib"] / row["install_cpu_ms_per_mib"]
            rows.append(row)
            print(f"{client:9} {transport:5} stock {row['stock_cpu_ms_per_mib']:7.2f} ms CPU/MiB "
                  f"({row['stock_wall_s']:.1f} s wall), install() {row['install_cpu_ms_per_mib']:7.2f} ms CPU/MiB "
                  f"({row['install_wall_s']:.1f} s wall): {row['ratio']:.2f}x less", flush=True)
    finally:
        server.stop()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cpu": cpu_model(),
        "load_average": os.getloadavg()[0], "python": sys.version.split()[0], "quick": QUICK, "rounds": ROUNDS,
        "size_mib": SIZE >> 20, "rows": rows}, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
