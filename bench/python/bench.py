"""tgcrypto_ffi against TgCrypto 1.2.5, cryptg and cipheron 0.2.1, in one
process (bench/python/run.sh sets up the venv): IGE encryption at 16 B,
256 B, 16 KiB and 1 MiB, CTR at 1 B, 16 B, 256 B, 16 KiB and 1 MiB, then
two threads against one at 1 MiB. Prints ns/call, MB/s (10^6 bytes/s), the
ratios, every Python target met or not, and writes
python.json in the results folder ($BENCH_RESULTS_DIR, else .tools/bench-results/).

Method: all implementations are timed round-robin; each sample is a loop
sized to about 10 ms (2 ms with BENCH_QUICK=1); the figure is the fastest of
ROUNDS samples (7, quick: 3; BENCH_ROUNDS=N overrides). Arguments are Pyrogram's shapes: bytes data,
key and IGE iv; bytearray CTR iv and state (the originals write into them).
"""
import json
import os
import platform
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import cipheron
import cryptg
import tgcrypto

import tgcrypto_ffi

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 3 if QUICK else 7))
SAMPLE_S = 0.002 if QUICK else 0.01
ROOT = Path(__file__).resolve().parents[2]
# the results folder of bench/lib/results.ts: $BENCH_RESULTS_DIR, else .tools/bench-results/ (never bench/results/)
OUT = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / ".tools" / "bench-results").resolve() / "python.json"
MiB = 1 << 20

ours = tgcrypto_ffi.tgcrypto
for m in (tgcrypto, cryptg, cipheron):
    assert "tgcrypto_ffi" not in (getattr(m, "__file__", "") or ""), m


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
        if "Model name" in fields:
            name = fields["Model name"].strip()
            if "CPU family" in fields and "Model" in fields:  # a VM may hide the exact name
                name += f" (family {fields['CPU family'].strip()}, model {fields['Model'].strip()})"
            return name
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def idle_percent(seconds=1.0):
    """How idle the CPUs were over `seconds` (Linux /proc/stat), or None."""
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        return sum(v), v[3] + v[4]
    try:
        t0, i0 = read()
        time.sleep(seconds)
        t1, i1 = read()
        return round(100 * (i1 - i0) / max(1, t1 - t0))
    except OSError:
        return None


def version_of(dist):
    from importlib.metadata import version

    return version(dist)


KEY = os.urandom(32)
IV32 = os.urandom(32)


def ige_calls(size):
    data = os.urandom(size)
    return {
        "tgcrypto_ffi": lambda: ours.ige256_encrypt(data, KEY, IV32),
        "TgCrypto": lambda: tgcrypto.ige256_encrypt(data, KEY, IV32),
        "cryptg": lambda: cryptg.encrypt_ige(data, KEY, IV32),
        "cipheron": lambda: cipheron.ige256_encrypt(data, KEY, IV32),
    }


def ctr_calls(size):
    data = os.urandom(size)
    ivs = {name: (bytearray(IV32[:16]), bytearray(1)) for name in ("tgcrypto_ffi", "TgCrypto", "cipheron")}
    return {
        "tgcrypto_ffi": lambda iv=ivs["tgcrypto_ffi"]: ours.ctr256_encrypt(data, KEY, iv[0], iv[1]),
        "TgCrypto": lambda iv=ivs["TgCrypto"]: tgcrypto.ctr256_encrypt(data, KEY, iv[0], iv[1]),
        "cipheron": lambda iv=ivs["cipheron"]: cipheron.ctr256_encrypt(data, KEY, iv[0], iv[1]),
    }


def loop_count(fn):
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt >= SAMPLE_S / 4 or n >= 1 << 22:
            return max(1, int(n * SAMPLE_S / max(dt, 1e-9)))
        n *= 4


def measure(calls):
    """{name: ns per call}, the fastest of ROUNDS round-robin samples."""
    loops = {name: loop_count(fn) for name, fn in calls.items()}
    best = {name: float("inf") for name in calls}
    for _ in range(ROUNDS):
        for name, fn in calls.items():
            n = loops[name]
            t = time.perf_counter_ns()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter_ns() - t) / n)
    return best


def threads_ratio(fn, calls_per_thread):
    """Throughput of 2 threads (each running fn calls_per_thread times) over 1 thread (the same)."""
    def one():
        t = time.perf_counter()
        for _ in range(calls_per_thread):
            fn()
        return time.perf_counter() - t

    def two():
        barrier = threading.Barrier(3)
        done = []

        def worker():
            barrier.wait()
            for _ in range(calls_per_thread):
                fn()
            done.append(time.perf_counter())

        ts = [threading.Thread(target=worker) for _ in range(2)]
        for t in ts:
            t.start()
        barrier.wait()
        t0 = time.perf_counter()
        for t in ts:
            t.join()
        return max(done) - t0

    best1 = min(one() for _ in range(ROUNDS))
    best2 = min(two() for _ in range(ROUNDS))
    return (2 * calls_per_thread / best2) / (calls_per_thread / best1), best1, best2


def fmt_ns(ns):
    return f"{ns:,.0f} ns" if ns < 100_000 else f"{ns / 1000:,.0f} µs"


def main():
    cpu = cpu_model()
    idle = idle_percent()
    if idle is not None:
        print(f"CPUs {idle}% idle before starting" + (" -- WARNING: other processes will skew these numbers" if idle < 90 else ""))
    print(f"CPU: {cpu} ({os.cpu_count()} logical CPUs); Python {platform.python_version()}; "
          f"tgcrypto_ffi {tgcrypto_ffi.__version__} backend {tgcrypto_ffi.get_backend()}; "
          f"TgCrypto {version_of('TgCrypto')}, cryptg {version_of('cryptg')}, cipheron {version_of('cipheron')} "
          f"({cipheron.get_backend()}){'; QUICK' if QUICK else ''}")
    results = []
    tables = {}
    for mode, sizes, make in (("IGE encrypt", (16, 256, 16384, MiB), ige_calls),
                              ("CTR", (1, 16, 256, 16384, MiB), ctr_calls)):
        for size in sizes:
            ns = measure(make(size))
            tables[(mode, size)] = ns
            for name, v in ns.items():
                results.append({"mode": mode, "size": size, "impl": name, "nsPerCall": v,
                                "MBps": size / v * 1e3})
    # 2 threads vs 1 at 1 MiB
    data = os.urandom(MiB)
    per = 40 if not QUICK else 10
    th_ige, t1, t2 = threads_ratio(lambda: ours.ige256_encrypt(data, KEY, IV32), per)
    th_ctr, _, _ = threads_ratio(lambda: ours.ctr256_encrypt(data, KEY, bytearray(16), bytearray(1)), per * 4)
    th_tg, _, _ = threads_ratio(lambda: tgcrypto.ige256_encrypt(data, KEY, IV32), per // 4 or 1)

    # ---- the tables
    names = ["tgcrypto_ffi", "TgCrypto", "cryptg", "cipheron"]
    for mode in ("IGE encrypt", "CTR"):
        print(f"\n{mode}: ns per call (MB/s); ratio = the others' time / tgcrypto_ffi's")
        print(f"| size | " + " | ".join(names) + " | ratio vs TgCrypto / cryptg / cipheron |")
        print("|---|" + "--:|" * len(names) + "---|")
        for (m, size), ns in tables.items():
            if m != mode:
                continue
            cells, ratios = [], []
            for n in names:
                if n in ns:
                    cells.append(f"{fmt_ns(ns[n])} ({size / ns[n] * 1e3:,.0f})")
                else:
                    cells.append("n/a")
            for n in names[1:]:
                ratios.append(f"{ns[n] / ns['tgcrypto_ffi']:.1f}x" if n in ns else "-")
            label = f"{size} B" if size < 1024 else (f"{size // 1024} KiB" if size < MiB else "1 MiB")
            print(f"| {label} | " + " | ".join(cells) + " | " + " / ".join(ratios) + " |")
    print(f"\n2 threads vs 1 at 1 MiB: IGE {th_ige:.2f}x (1 thread {per} calls in {t1 * 1e3:.1f} ms, "
          f"2 threads 2x{per} in {t2 * 1e3:.1f} ms); CTR {th_ctr:.2f}x; TgCrypto IGE {th_tg:.2f}x")

    # ---- the Python targets
    targets = []

    def target(what, value, goal):
        met = value >= goal
        targets.append({"target": what, "value": round(value, 3), "goal": goal, "met": met})
        print(f"  {'met    ' if met else 'NOT MET'}  {what}: {value:.2f}x (goal >= {goal}x)")

    print("\ntargets (Python):")
    for mode in ("IGE encrypt", "CTR"):
        for size in (16, 256):
            ns = tables[(mode, size)]
            target(f"{mode} {size} B vs TgCrypto", ns["TgCrypto"] / ns["tgcrypto_ffi"], 2)
            if "cryptg" in ns:
                target(f"{mode} {size} B vs cryptg", ns["cryptg"] / ns["tgcrypto_ffi"], 2)
        for size in (16384, MiB):
            ns = tables[(mode, size)]
            label = "16 KiB" if size == 16384 else "1 MiB"
            target(f"{mode} {label} vs TgCrypto", ns["TgCrypto"] / ns["tgcrypto_ffi"], 3)
            if "cryptg" in ns:
                target(f"{mode} {label} vs cryptg", ns["cryptg"] / ns["tgcrypto_ffi"], 1.5)
            target(f"{mode} {label} vs cipheron", ns["cipheron"] / ns["tgcrypto_ffi"], 1.3)
    target("2 threads vs 1 thread, IGE 1 MiB", th_ige, 1.8)
    ns1 = tables[("CTR", 1)]
    print(f"  (no target) CTR 1 B: {ns1['tgcrypto_ffi']:.0f} ns, {ns1['TgCrypto'] / ns1['tgcrypto_ffi']:.1f}x TgCrypto, "
          f"{ns1['cipheron'] / ns1['tgcrypto_ffi']:.1f}x cipheron")
    missed = [t["target"] for t in targets if not t["met"]]
    print(f"\n{len(targets) - len(missed)} of {len(targets)} targets met" + (f"; not met: {', '.join(missed)}" if missed else ""))

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "kind": "python",
        "cpu": {"model": cpu, "logicalCpus": os.cpu_count()},
        "python": platform.python_version(),
        "library": {"version": tgcrypto_ffi.__version__, "backend": tgcrypto_ffi.get_backend(),
                    "hashEngine": tgcrypto_ffi.hash_engine()},
        "peers": {"TgCrypto": version_of("TgCrypto"), "cryptg": version_of("cryptg"),
                  "cipheron": f"{version_of('cipheron')} ({cipheron.get_backend()})"},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "quick": QUICK,
        "idlePercentBefore": idle,
        "method": f"one process, round-robin, fastest of {ROUNDS} samples of ~{SAMPLE_S * 1e3:.0f} ms",
        "results": results,
        "threads": {"ige1MiB": th_ige, "ctr1MiB": th_ctr, "tgcryptoIge1MiB": th_tg},
        "targets": targets,
    }, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
