#!/usr/bin/env python3
"""`make bench`: instructions per operation of the usercopy workloads.

Boots each benchmark kernel under QEMU with -icount shift=0, where the
guest clock counts executed instructions, runs tests/bench/ucbench.c and
prints one table: kernel x workload, with each kernel's overhead over the
kernel without hardened usercopy.  The table is also written as Markdown
for Documentation/performance.md.  A benchmark, not a test: it never fails
because of a number.
"""
import argparse
import os
import re
import subprocess
import sys

# (column label, kernel directory name, extra command line)
KERNELS = [
    ("(a) no HU", "bench-{u}-nohu", ""),
    ("(b) mainline", "bench-{u}-mainline", ""),
    ("(c) off", "bench-{u}", "usercopy_mode=off"),
    ("(c) log", "bench-{u}", "usercopy_mode=log"),
    ("(c) enforce", "bench-{u}", "usercopy_mode=enforce"),
]
WORKLOADS = ["unix64", "getsockopt", "poll", "readv", "proc-stat", "fstat",
             "getppid", "messaging"]


def run(guestdir, kdir, extra, ops, logdir, tag):
    console = os.path.join(logdir, f"bench-{tag}.console")
    out = os.path.join(logdir, f"bench-{tag}.out")
    for f in (console, out):
        if os.path.exists(f):
            os.unlink(f)
    cmd = ["qemu-system-x86_64", "-M", "pc", "-m", "512", "-smp", "1",
           "-accel", "tcg", "-icount", "shift=0", "-cpu", "qemu64",
           "-display", "none", "-nodefaults", "-no-reboot",
           "-kernel", os.path.join(kdir, "bzImage"),
           "-initrd", os.path.join(guestdir, "initramfs.cpio.gz"),
           "-append", f"console=ttyS0 panic=-1 uctest=bench "
                      f"uctest.ops={ops} {extra}",
           "-serial", "file:" + console, "-serial", "file:" + out]
    subprocess.run(cmd, timeout=1800, stdin=subprocess.DEVNULL, check=False)
    res = {}
    measured = False
    for line in open(out, errors="replace"):
        if line.startswith("# measured"):
            measured = True
        m = re.match(r"bench (\S+) ([\d.]+)", line)
        if m and measured:
            res[m.group(1)] = float(m.group(2))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", required=True,
                    help="directory of the bench-* kernel directories")
    ap.add_argument("--guest", required=True, help="benchmark initramfs dir")
    ap.add_argument("--unwinders", default="fp,orc")
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--logdir", required=True)
    ap.add_argument("--markdown", required=True)
    args = ap.parse_args()
    os.makedirs(args.logdir, exist_ok=True)

    tables = []
    for u in args.unwinders.split(","):
        cols = []
        for label, kname, extra in KERNELS:
            kdir = os.path.join(args.kernels, kname.format(u=u))
            tag = f"{kname.format(u=u)}-{extra.split('=')[-1] or 'default'}"
            print(f"# {u}: {label} ...", file=sys.stderr, flush=True)
            cols.append((label, run(args.guest, kdir, extra, args.ops,
                                    args.logdir, tag)))
        tables.append((u, cols))

    md = []
    unwname = {"fp": "frame pointer", "orc": "ORC"}
    for u, cols in tables:
        base = cols[0][1]
        md.append(f"Unwinder: {unwname.get(u, u)}. Instructions per "
                  f"operation; in brackets the overhead over (a).\n")
        md.append("| workload | " + " | ".join(c[0] for c in cols) + " |")
        md.append("|---" * (len(cols) + 1) + "|")
        for w in WORKLOADS:
            cells = []
            for label, r in cols:
                v = r.get(w)
                if v is None:
                    cells.append("n/a")
                elif label == cols[0][0] or not base.get(w):
                    cells.append(f"{v:.0f}")
                else:
                    cells.append(f"{v:.0f} ({(v / base[w] - 1) * 100:+.1f}%)")
            md.append(f"| {w} | " + " | ".join(cells) + " |")
        md.append("")
    text = "\n".join(md)
    print(text)
    with open(args.markdown, "w") as f:
        f.write(text + "\n")
    print(f"# table written to {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
