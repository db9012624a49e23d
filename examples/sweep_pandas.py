#!/usr/bin/env python3
"""Load a balloc sweep into pandas and draw its gap against n with matplotlib.

    balloc sweep examples/gap-vs-n.toml --out out/gap-vs-n
    python3 examples/sweep_pandas.py out/gap-vs-n out/gap-vs-n.png

The sweep folder's results.jsonl holds one JSON object per trial (the fields of
`balloc run --format jsonl`, README: Output); its parameters become one column
each (params.d, ...). A tidy CSV of `balloc run --format csv` loads with
pandas.read_csv directly: a row per (trial, checkpoint), `final` marking the end.
Needs Debian's python3-pandas and python3-matplotlib.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file
import matplotlib.pyplot as plt
import matplotlib.ticker
import pandas as pd

# t_{0.975, ν}: exact to the digits shown for ν ≤ 30, the Cornish–Fisher
# expansion (error below 1e-6) beyond; balloc's tables use the same quantile.
T975 = [12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
        2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
        2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
        2.048407, 2.045230, 2.042272]


def t975(nu):
    if nu <= len(T975):
        return T975[nu - 1]
    z = 1.959963984540054
    return (z + (z**3 + z) / (4 * nu) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * nu**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * nu**3))


def load_sweep(folder):
    """One row per trial: the results file flattened, params.* a column each."""
    with open(f"{folder}/results.jsonl") as f:
        records = [json.loads(line) for line in f if line.strip()]
    df = pd.json_normalize(records, sep=".")
    keep = [c for c in df.columns if c.startswith("params.")]
    keep += ["process", "bins", "balls", "trial", "seed", "engine", "gap", "max_gap", "max_load", "balls_per_s"]
    return df[keep]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sweep_pandas.py SWEEP_FOLDER OUT.png")
    folder, out = sys.argv[1], sys.argv[2]
    df = load_sweep(folder)
    print(df.head().to_string())
    # Mean gap per process and n with its 95% interval (Student t, as balloc's tables).
    by = df.groupby(["process", "bins"])["gap"]
    summary = by.agg(["count", "mean", "std"]).reset_index()
    summary["ci"] = [t975(n - 1) * s / n**0.5 if n > 1 else 0.0 for n, s in zip(summary["count"], summary["std"])]
    print()
    print(summary.to_string(index=False))
    fig, ax = plt.subplots(figsize=(6, 4))
    for process, g in summary.groupby("process"):
        ax.errorbar(g["bins"], g["mean"], yerr=g["ci"], marker="o", capsize=3, label=process)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_yticks([1, 2, 5, 10, 20, 50])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("bins n")
    ax.set_ylabel("gap at m = 100·n (mean, 95% CI)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"\nfigure: {out}")


if __name__ == "__main__":
    main()
