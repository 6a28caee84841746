#!/usr/bin/env python3
"""Boot test guests under QEMU and count what they report.

Each boot runs the suites named on its kernel command line (see
tests/guest/init).  The guest writes KTAP to its second serial port; the
kernel log on the first is scanned for KUnit results (KTAP) and for any
sign of a kernel in trouble (tests/lib/oops.ere, which the guest uses
too), and a guest that does not finish in time counts as hung.  TAP files
produced on the host (static checks) can be merged in with --tap.

Prints one KTAP document of every result, numbered, each prefixed with
where it comes from; its last line is "N passed, N failed".
"""
import argparse
import os
import re
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The command line of the boots with the kmalloc caches off the
# whitelist.  KUnit at boot: only the tests that hold without it.
STRICT_KUNIT = ("kunit.filter_glob="
                "usercopy.usercopy_test_user_caches")
STRICT = f"usercopy_kmalloc=strict {STRICT_KUNIT}"

# Every suite of the guest tests, in the order of a full boot.
ENFORCE_SUITES = ("auditd,kunit,lkdtm,violations,irq,sysctl,mode-log,lkdtm,"
                  "violations,irq,flood,mode-off,lkdtm,violations,"
                  "mode-enforce,mode-switch,whitelist,rawmem,usercopyctl,"
                  "lock,audit-log")

# Test plan of `make check`: (boot name, kernel variant, extra command
# line, suites in order).  Enforce is the default mode of every kernel.
CHECK_PLAN = [
    ("orc-enforce", "orc", "", ENFORCE_SUITES),
    ("orc-boot-log", "orc", "usercopy_mode=log",
     "expect-log,auditd,violations,audit-log"),
    ("orc-boot-off", "orc", "hardened_usercopy=off",
     "expect-off,auditd,violations"),
    # The stack cases and LKDTM's with return addresses replaced by the
    # function graph tracer and a kretprobe (distro.config has both).
    *[(f"{v}-traced", v, "",
       "auditd,trace-on,violations,lkdtm,trace-off,violations")
      for v in ("orc", "orc612")],
    # The kmalloc caches without a whitelist, in log mode: nothing but
    # the test module copies from them; debugfs attributes bounce.
    ("orc-kmalloc-strict", "orc", f"usercopy_mode=log {STRICT}",
     "expect-log,strict"),
    # The rt kernel takes the kmalloc caches off the whitelist by
    # default (rt.config); usercopy_kmalloc=whole gives it back.
    ("rt-enforce", "rt", "usercopy_kmalloc=whole",
     "auditd,kunit,lkdtm,violations,irq,mode-log,violations,irq,"
     "mode-enforce,rawmem,lock"),
    ("slab-enforce", "slab", "",
     "auditd,kunit,lkdtm,violations,mode-log,violations,mode-enforce,"
     "whitelist,rawmem"),
    # No false positives: a stress-ng sweep in log mode, then in enforce
    # mode (tests/guest/stress.sh), on each unwinder and allocator, with
    # the kmalloc caches off the whitelist.
    ("orc-stress", "orc", STRICT, "mode-log,stress,mode-enforce,stress"),
    ("rt-stress", "rt", STRICT_KUNIT,
     "mode-log,stress,mode-enforce,stress,mode-log,strict"),
    ("slab-stress", "slab", STRICT, "mode-log,stress,mode-enforce,stress"),
    # Linux 6.12 (patches/6.12), SLUB only: the tests of orc-enforce on
    # ORC (in `make check`) and on frame pointers (`make check
    # KVER=6.12`), each with a strict sweep.
    *[(f"{v}-enforce", v, "", ENFORCE_SUITES) for v in ("orc612", "fp612")],
    *[(f"{v}-stress", v, STRICT,
       "mode-log,stress,mode-enforce,stress,mode-log,strict")
      for v in ("orc612", "fp612")],
    # Not in `make check`: `make jump-label-repro`, the unpatched kernel.
    ("jump-label-vanilla", "vanilla", "", "jump-label"),
]

# Test plan of `make stress` (--plan stress): the long stress-ng sweep,
# each stressor alone, one boot per mode (each 13-18 minutes under
# TCG).
STRESS_PLAN = [
    (f"{v}-stress-long-{m}", v, f"uctest.stress=long {STRICT}",
     f"mode-{m},stress")
    for v in ("orc", "rt", "slab") for m in ("log", "enforce")
]
# The boots of each --plan, from the variants given.  boot: each variant
# boots to the end of /init and runs no suite (make bisect-check, for
# every prefix of the series).
PLANS = {
    "check": lambda variants: CHECK_PLAN,
    "stress": lambda variants: STRESS_PLAN,
    "boot": lambda variants: [(f"{v}-boot", v, "", "") for v in variants],
}


STRESS_SUMMARY = re.compile(r"^# stress summary: (.*)$")
STRESS_VIOLATION = "# stress violation: "

with open(os.path.join(HERE, "lib", "oops.ere")) as f:
    TROUBLE = re.compile("|".join(l.rstrip("\n") for l in f if l.strip()))
KTAP_SUB = re.compile(r"^(?:\[[^\]]*\] )?\s{4,}(ok|not ok) \d+ (.*)$")
TAP = re.compile(r"^(ok|not ok)\b\s*(?:\d+\s*)?-?\s*(.*)$")


KVM_DEV = "/dev/kvm"


def kvm_works(cache, kernel, wait=20):
    """/dev/kvm may exist without working: it may fail to open, or open
    and never run a vCPU.  Ask QEMU once, with a kernel that must print
    its banner within seconds, and remember."""
    if os.path.exists(cache):
        return open(cache).read().strip() == "kvm"
    accel = "tcg"
    if os.path.exists(KVM_DEV) and os.path.exists(kernel):
        p = subprocess.Popen(
            ["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host",
             "-M", "pc", "-m", "256", "-display", "none", "-nodefaults",
             "-no-reboot", "-serial", "stdio", "-kernel", kernel,
             "-append", "console=ttyS0 panic=-1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out, deadline = b"", time.time() + wait
        while b"Linux version" not in out and time.time() < deadline:
            ready, _, _ = select.select([p.stdout], [], [], 1)
            if ready:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    break
                out += chunk
        p.kill()
        p.wait()
        if b"Linux version" in out:
            accel = "kvm"
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache, "w") as f:
        f.write(accel + "\n")
    return accel == "kvm"


class Result:
    """Results in order: (where, ok, description), ok None for a skip."""

    def __init__(self):
        self.results = []
        self.notes = []

    def add(self, where, ok, desc):
        self.results.append((where, ok, desc))

    def count(self, ok):
        return sum(1 for r in self.results if r[1] is ok)

    passed = property(lambda self: self.count(True))
    failed = property(lambda self: self.count(False))
    skipped = property(lambda self: self.count(None))

    def merge(self, other):
        self.results += other.results
        self.notes += other.notes


class Ktap:
    """The aggregated KTAP document, printed as the results come."""

    def __init__(self):
        self.n = 0
        print("TAP version 13", flush=True)

    def results(self, res):
        for where, ok, desc in res.results:
            self.n += 1
            print(f"{'not ok' if ok is False else 'ok'} {self.n} {where}: "
                  f"{desc}")
        sys.stdout.flush()


def parse_tap(where, text, res):
    for line in text.splitlines():
        m = TAP.match(line.strip())
        if not m:
            continue
        desc = m.group(2)
        if re.search(r"#\s*SKIP", desc, re.I):
            res.add(where, None, desc)
        else:
            res.add(where, m.group(1) == "ok", desc)


def qemu_cmd(kernel, initrd, append, console, tap, icount=False,
             accel="tcg"):
    cmd = ["qemu-system-x86_64", "-M", "pc", "-m", "512", "-smp", "2",
           "-display", "none", "-nodefaults", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd, "-append", append,
           "-serial", "file:" + console, "-serial", "file:" + tap]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        # One host thread runs both vCPUs.  With one thread per vCPU, a
        # vCPU may run a stale translation of a static key's call site
        # after another vCPU patched it, and trap on text_poke_bp()'s
        # int3: `make jump-label-repro` shows it on the unpatched kernel
        # (Documentation/performance.md).  UC_TCG_THREAD=multi to see it.
        tcg = "tcg,thread=" + os.environ.get("UC_TCG_THREAD", "single")
        cmd += ["-accel", tcg, "-cpu", "max"]
    if icount:
        cmd += ["-icount", "shift=0"]
    return cmd


def boot(name, kernel, initrd, append, logdir, timeout, accel):
    """Boot once; return (Result, seconds)."""
    res = Result()
    console = os.path.join(logdir, name + ".console")
    tap = os.path.join(logdir, name + ".tap")
    for f in (console, tap):
        if os.path.exists(f):
            os.unlink(f)
    start = time.time()
    try:
        subprocess.run(qemu_cmd(kernel, initrd, append, console, tap,
                                accel=accel),
                       stdin=subprocess.DEVNULL, timeout=timeout,
                       check=False)
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
    secs = time.time() - start
    con = open(console, errors="replace").read() if os.path.exists(console) else ""
    out = open(tap, errors="replace").read() if os.path.exists(tap) else ""

    parse_tap(name, out, res)
    if "# audit.log begin" in out:
        with open(os.path.join(logdir, name + ".audit.log"), "w") as f:
            for line in out.splitlines():
                if line.startswith("#| "):
                    f.write(line[3:] + "\n")
    for line in con.splitlines():
        m = KTAP_SUB.match(line)
        if m:
            desc = "KUnit " + m.group(2)
            if re.search(r"#\s*SKIP", desc):
                res.add(name, None, desc)
            else:
                res.add(name, m.group(1) == "ok", desc)
    trouble = [l for l in con.splitlines() if TROUBLE.search(l)]
    res.add(name, not trouble,
            "kernel log free of oops/BUG/WARN/panic" +
            (": " + trouble[0].strip() if trouble else ""))
    res.add(name, not hung, f"guest finished within {timeout} s")
    res.add(name, "# done" in out, "guest ran every suite to the end")
    if res.failed:
        res.notes.append(f"[{name}] logs: {console} {tap}")
    return res, secs


def stress_lines(name, tap, sweeps, violations):
    """Collect a boot's "# stress summary: k=v..." and "# stress
    violation: ..." lines (tests/guest/stress.sh)."""
    if not os.path.exists(tap):
        return
    with open(tap, errors="replace") as f:
        for line in f:
            m = STRESS_SUMMARY.match(line.rstrip("\n"))
            if m:
                sweeps.append(dict([("boot", name)] + [
                    kv.split("=", 1) for kv in m.group(1).split()]))
            elif line.startswith(STRESS_VIOLATION):
                violations.append((name, line[len(STRESS_VIOLATION):].strip()))


def stress_table(rows, violations):
    """The sweeps of tests/guest/stress.sh: one row per boot, mode and
    class, then every report of a violation a stressor caused."""
    cols = ("boot", "mode", "class", "stressors", "ran", "violations",
            "kills", "seconds")
    print("# stress-ng sweeps:")
    table = [cols] + [tuple(r.get(c, "") for c in cols) for r in rows]
    widths = [max(len(t[i]) for t in table) for i in range(len(cols))]
    for t in table:
        print("#   " + "  ".join(v.ljust(w) for v, w in zip(t, widths)).rstrip())
    for where, line in violations:
        print(f"# [{where}] {line}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel-dir", required=True,
                    help="directory holding <variant>/bzImage and "
                         "<variant>/initramfs.cpio.gz")
    ap.add_argument("--variants", default="orc,rt,slab")
    ap.add_argument("--logdir", required=True)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--tap", action="append", default=[],
                    help="host TAP file to count too (name=path)")
    ap.add_argument("--only", help="run only the boots whose name has this")
    ap.add_argument("--plan", choices=sorted(PLANS), default="check",
                    help="the boots to run: make check's, make stress's "
                         "or a bare boot of each variant")
    ap.add_argument("--append", default="",
                    help="more kernel command line for every boot")
    args = ap.parse_args()

    os.makedirs(args.logdir, exist_ok=True)
    ktap = Ktap()
    probe = os.path.join(args.kernel_dir, args.variants.split(",")[0], "bzImage")
    accel = "kvm" if kvm_works(os.path.join(args.logdir, "accel"), probe) else "tcg"
    print(f"# QEMU accelerator: {accel}", flush=True)
    total = Result()
    for spec in args.tap:
        name, path = spec.split("=", 1)
        r = Result()
        parse_tap(name, open(path).read(), r)
        ktap.results(r)
        print(f"# {name}: {r.passed} passed, {r.failed} failed, "
              f"{r.skipped} skipped", flush=True)
        total.merge(r)

    variants = args.variants.split(",")
    sweeps, violations = [], []
    for name, variant, extra, suites in PLANS[args.plan](variants):
        if variant not in variants or (args.only and args.only not in name):
            continue
        vdir = os.path.join(args.kernel_dir, variant)
        # --append before the plan's: the guest's /init takes the first
        # of a name (uctest.stress=list:... over the plan's long).
        append = ("console=ttyS0,115200 panic=-1 oops=panic panic_on_warn=1 "
                  f"audit=1 {args.append} uctest={suites} "
                  f"uctest.variant={variant} {extra}").strip()
        r, secs = boot(name, os.path.join(vdir, "bzImage"),
                       os.path.join(vdir, "initramfs.cpio.gz"), append,
                       args.logdir, args.timeout, accel)
        ktap.results(r)
        print(f"# boot {name}: {r.passed} passed, {r.failed} failed, "
              f"{r.skipped} skipped ({secs:.0f} s)", flush=True)
        total.merge(r)
        stress_lines(name, os.path.join(args.logdir, name + ".tap"),
                     sweeps, violations)

    if args.plan == "stress" or violations:
        stress_table(sweeps, violations)

    print(f"1..{ktap.n}")
    for where, ok, desc in total.results:
        if ok is False:
            print(f"# FAIL [{where}] {desc}")
    for note in total.notes:
        print(f"# {note}")
    print(f"# Totals: pass:{total.passed} fail:{total.failed} xfail:0 "
          f"xpass:0 skip:{total.skipped} error:0")
    print(f"{total.passed} passed, {total.failed} failed")
    return 1 if total.failed or not total.passed else 0


if __name__ == "__main__":
    sys.exit(main())
