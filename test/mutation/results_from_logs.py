#!/usr/bin/env python3
"""The results file of a mutate_files.py run that was stopped, or made of
several partial runs, from their printed logs.

    python3 test/mutation/results_from_logs.py --target FILE... --name NAME \\
        [--filter REGEX] [--equivalent FILE] --build-cmd CMD --test-cmd CMD LOG...

Each mutant takes the last status a log gives it ("caught", "survived",
"invalid"); one no log names is "not run" (left out of the score, listed).
The equivalent file is applied as mutate_files.py does."""
import argparse
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_c  # noqa: E402
import mutate_files  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", nargs="+", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--filter", default=None)
    ap.add_argument("--equivalent", default=mutate_files.DEFAULT_EQUIVALENT)
    ap.add_argument("--build-cmd", required=True)
    ap.add_argument("--test-cmd", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    mutants = mutate_files.all_mutants(args.target)
    if args.filter:
        rx = re.compile(args.filter)
        mutants = [m for m in mutants if rx.search(m.id) or rx.search(m.describe())]
    seen = {}
    for log in args.logs:
        for ln in open(log):
            m = re.match(r"\[\d+/\d+\]\s+(caught|survived|invalid)\s+([0-9a-f]{10})\s.*\((.*)\)\s*$", ln)
            if m and "caught in an earlier run" not in ln:
                seen[m.group(2)] = (m.group(1), m.group(3) + " [%s]" % os.path.basename(log))
    for m in mutants:
        m.status, m.detail = seen.get(m.id, ("not run", "not run before the run was stopped"))
        m.seconds = 0.0
    mutate_c.EQUIVALENT = os.path.abspath(args.equivalent)
    eq = mutate_c.load_equivalent()
    for m in mutants:
        if m.status == "survived" and m.id in eq:
            m.status, m.detail = eq[m.id]
    args.equivalent = os.path.abspath(args.equivalent)
    report = mutate_files.render(mutants, args, 0.0)
    not_run = [m for m in mutants if m.status == "not run"]
    report = report.replace("## Score\n", "## Score\n\n(combined from %d logs; %d of %d mutants not run)\n"
                            % (len(args.logs), len(not_run), len(mutants)), 1)
    out = args.out or os.path.join(mutate_c.RESULTS, "%s-%s.txt" % (datetime.date.today().isoformat(), args.name))
    open(out, "w").write(report)
    print(report[report.index("## Score"):report.index("## Every mutant")])
    print("written to", os.path.relpath(out, mutate_c.ROOT))


if __name__ == "__main__":
    main()
