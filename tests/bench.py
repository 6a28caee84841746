#!/usr/bin/env python3
"""`make bench`: instructions per operation of the usercopy workloads.

Boots each benchmark kernel under QEMU with -icount shift=0, where the
guest clock counts executed instructions, runs tests/bench/ucbench.c and
prints one table per unwinder: workload row x kernel, with each kernel's
overhead over the kernel without hardened usercopy, and this series'
enforce mode as a fraction of mainline's overhead, and one table of the
slab memory of each kernel after boot and after the rows.  The tables are
written as Markdown to --markdown and, for a run of all rows, into the
marked section of Documentation/performance.md.  A benchmark, not a test: it
never fails because of a number.
"""
import argparse
import datetime
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
UNWINDERS = {"fp": "frame pointer", "orc": "ORC"}
# Below this many instructions of overhead mainline does not check the
# row's copies (the tick of the timer moves a row by a few): no fraction.
UNCHECKED = 5
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def run(guestdir, kdir, extra, budget, rows, logdir, tag):
    console = os.path.join(logdir, f"bench-{tag}.console")
    out = os.path.join(logdir, f"bench-{tag}.out")
    for f in (console, out):
        if os.path.exists(f):
            os.unlink(f)
    cmd = ["nice", "-n", "5",
           "qemu-system-x86_64", "-M", "pc", "-m", "512", "-smp", "1",
           "-accel", "tcg", "-icount", "shift=0", "-cpu", "qemu64",
           "-display", "none", "-nodefaults", "-no-reboot",
           "-kernel", os.path.join(kdir, "bzImage"),
           "-initrd", os.path.join(guestdir, "initramfs.cpio.gz"),
           "-append", f"console=ttyS0 panic=-1 uctest=bench "
                      f"uctest.budget={budget} uctest.rows={rows} {extra}",
           "-serial", "file:" + console, "-serial", "file:" + out]
    subprocess.run(cmd, timeout=3600, stdin=subprocess.DEVNULL, check=False)
    res, mem = {}, {}
    measured = False
    for line in open(out, errors="replace"):
        if line.startswith("# measured"):
            measured = True
        m = re.match(r"bench (\S+) ([\d.]+)", line)
        if m and measured:
            res[m.group(1)] = float(m.group(2))
        elif line.startswith("memory "):
            when, *fields = line.split()[1:]
            mem[when] = {k: int(v) for k, v in
                         (f.split("=") for f in fields) if int(v) >= 0}
        elif line.startswith("ucbench:"):
            print(f"# {tag}: {line.strip()}", file=sys.stderr)
    return res, mem


def table(u, cols, origin):
    """The Markdown table of one unwinder."""
    base = cols[0][1]
    rows = []
    for _, r in cols:
        rows += [w for w in r if w not in rows]
    md = [f"<!-- bench:unwinder={u} -->",
          f"Unwinder: {UNWINDERS.get(u, u)}. {origin} "
          "Instructions per operation; in "
          "brackets the overhead over (a). *enforce/mainline*: the "
          "overhead of (c) enforce as a fraction of (b)'s, "
          "(enforce - a) / (mainline - a); *off*: (c) off over (a).\n",
          "| row | " + " | ".join(c[0] for c in cols) +
          " | enforce/mainline | off |",
          "|---" * (len(cols) + 3) + "|"]
    for w in rows:
        cells = []
        for label, r in cols:
            v = r.get(w)
            if v is None:
                cells.append("n/a")
            elif r is base or not base.get(w):
                cells.append(f"{v:.0f}")
            else:
                cells.append(f"{v:.0f} ({(v / base[w] - 1) * 100:+.1f}%)")
        a, b = base.get(w), cols[1][1].get(w)
        enf, off = cols[4][1].get(w), cols[2][1].get(w)
        if None in (a, b, enf):
            cells.append("n/a")
        elif b - a < UNCHECKED:
            cells.append("-")
        else:
            cells.append(f"{(enf - a) / (b - a):.2f}")
        cells.append("n/a" if None in (a, off) or not a
                     else f"{(off / a - 1) * 100:+.1f}%")
        md.append(f"| {w} | " + " | ".join(cells) + " |")
    md.append("")
    return "\n".join(md)


# (row label, when, field of the "memory" line, unit)
MEMORY = [
    ("Slab, after boot", "boot", "slab", " KiB"),
    ("Slab, after the rows", "rows", "slab", " KiB"),
    ("of which unreclaimable", "rows", "unreclaimable", " KiB"),
    ("`kmalloc-N` slabs, after the rows", "rows", "kmalloc", " KiB"),
    ("`usercopy-kmalloc-N` slabs, after the rows", "rows",
     "usercopy-kmalloc", " KiB"),
    ("caches in /proc/slabinfo", "boot", "caches", ""),
]


def memory_table(mems):
    """The Markdown table of the kernels' slab memory."""
    md = ["Slab memory of the same boots (`/proc/meminfo`, and slabs times "
          "pages per slab from `/proc/slabinfo`), after boot and after all "
          "the rows ran; *(c) - (b)*: this series in enforce mode against "
          "mainline.\n",
          "| memory | " + " | ".join(c[0] for c in mems) + " | (c) - (b) |",
          "|---" * (len(mems) + 2) + "|"]
    for label, when, field, unit in MEMORY:
        vals = [m.get(when, {}).get(field) for _, m in mems]
        cells = ["n/a" if v is None else f"{v}{unit}" for v in vals]
        b, enf = vals[1], vals[4]
        cells.append("n/a" if None in (b, enf) else f"{enf - b:+d}{unit}")
        md.append(f"| {label} | " + " | ".join(cells) + " |")
    md.append("")
    return "\n".join(md)


def update_doc(doc, blocks):
    """Replace the tables of the unwinders measured in doc's marked section,
    keeping the others'."""
    text = open(doc).read()
    if BEGIN not in text or END not in text:
        print(f"# {doc} has no {BEGIN} ... {END} section; not updated",
              file=sys.stderr)
        return
    head, rest = text.split(BEGIN, 1)
    section, tail = rest.split(END, 1)
    old = {}
    for part in re.split(r"(?=<!-- bench:unwinder=)", section):
        m = re.match(r"<!-- bench:unwinder=(\w+) -->", part)
        if m:
            old[m.group(1)] = part.strip() + "\n"
    old.update(blocks)
    order = [u for u in UNWINDERS if u in old] + \
            [u for u in old if u not in UNWINDERS]
    body = "\n".join(old[u] for u in order)
    with open(doc, "w") as f:
        f.write(f"{head}{BEGIN}\n{body}{END}{tail}")
    print(f"# tables written to {doc}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", required=True,
                    help="directory of the bench-* kernel directories")
    ap.add_argument("--guest", required=True, help="benchmark initramfs dir")
    ap.add_argument("--unwinders", default="fp,orc")
    ap.add_argument("--budget", type=int, default=20000000,
                    help="instructions each row runs for, about")
    ap.add_argument("--rows", default="",
                    help="comma-separated fnmatch patterns of rows; "
                         "default all, and only then is --doc updated")
    ap.add_argument("--logdir", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--doc", help="Markdown file with a marked section "
                                  f"{BEGIN} ... {END} to rewrite")
    ap.add_argument("--series", required=True,
                    help="the quilt series (c) was built from")
    args = ap.parse_args()
    os.makedirs(args.logdir, exist_ok=True)

    npatch = sum(1 for line in open(args.series)
                 if line.strip() and not line.startswith("#"))
    origin = (f"`make bench` of {datetime.date.today().isoformat()}, (c) "
              f"with the {npatch} patches of `{args.series}`.")
    blocks = {}
    for u in args.unwinders.split(","):
        cols, mems = [], []
        for label, kname, extra in KERNELS:
            kdir = os.path.join(args.kernels, kname.format(u=u))
            tag = f"{kname.format(u=u)}-{extra.split('=')[-1] or 'default'}"
            print(f"# {u}: {label} ...", file=sys.stderr, flush=True)
            res, mem = run(args.guest, kdir, extra, args.budget,
                           args.rows or "*", args.logdir, tag)
            cols.append((label, res))
            mems.append((label, mem))
        blocks[u] = table(u, cols, origin) + "\n" + memory_table(mems)

    text = "\n".join(blocks.values())
    print(text)
    with open(args.markdown, "w") as f:
        f.write(text)
    print(f"# tables written to {args.markdown}", file=sys.stderr)
    if args.doc and not args.rows:
        update_doc(args.doc, blocks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
