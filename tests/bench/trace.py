#!/usr/bin/env python3
"""`make bench-trace`: where the instructions of one system call go.

Boots a benchmark kernel under QEMU with its gdb stub, lets ucbench run,
stops at the N-th entry of a kernel function (a system call's entry, by
default that of fstat()), then single-steps until the CPU is back in user
space and counts the instructions executed in each kernel function.  The
guest's perf is not available under TCG; this is exact, and slow only in
proportion to the instructions it steps (about a thousand per second).

Run as a gdb script by itself: the host side starts QEMU and gdb.
"""
import argparse
import collections
import os
import socket
import subprocess
import sys
import time

USER_TOP = 0xffff800000000000


def in_gdb():
    import gdb

    env = os.environ
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute(f"target remote :{env['TRACE_PORT']}")
    gdb.execute(f"hbreak {env['TRACE_FUNC']}")
    for _ in range(int(env["TRACE_SKIP"])):
        gdb.execute("continue", to_string=True)
    gdb.execute("delete")
    counts = collections.Counter()
    calls = []
    steps = 0
    while steps < 1000000:
        pc = int(gdb.parse_and_eval("$pc")) & (2**64 - 1)
        if pc < USER_TOP:
            break
        try:
            name = gdb.execute(f"info symbol {pc:#x}",
                               to_string=True).split()[0]
        except gdb.error:
            name = f"{pc:#x}"
        counts[name] += 1
        if not calls or calls[-1][0] != name:
            calls.append([name, 0])
        calls[-1][1] += 1
        steps += 1
        gdb.execute("stepi", to_string=True)
    with open(env["TRACE_OUT"], "w") as out:
        out.write(f"{steps}\n")
        for name, n in counts.most_common():
            out.write(f"{n} {name}\n")
        out.write("--\n")
        for name, n in calls:
            out.write(f"{n} {name}\n")
    gdb.execute("kill")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True,
                    help="build directory of a benchmark kernel")
    ap.add_argument("--guest", required=True,
                    help="directory with the benchmark initramfs")
    ap.add_argument("--func", default="__x64_sys_newfstatat",
                    help="kernel function to start at")
    # ucbench runs a row 4 times to warm it up and 16 to size the run:
    # the 25th entry is in the measured run of the first row reaching it.
    ap.add_argument("--skip", type=int, default=24,
                    help="entries to let pass first")
    ap.add_argument("--rows", default="*",
                    help="the ucbench rows to run (fnmatch patterns)")
    ap.add_argument("--append", default="", help="extra kernel parameters")
    ap.add_argument("--calls", action="store_true",
                    help="also print the functions in the order run")
    args = ap.parse_args()

    vmlinux = os.path.join(args.kernel, "vmlinux")
    bzimage = os.path.join(args.kernel, "arch/x86/boot/bzImage")
    for f in (vmlinux, bzimage):
        if not os.path.exists(f):
            sys.exit(f"bench-trace: {f} is missing; build it with make bench")
    port = free_port()
    out = os.path.join(args.kernel, "trace.out")
    qemu = subprocess.Popen(
        ["nice", "-n", "5",
         "qemu-system-x86_64", "-M", "pc", "-m", "512", "-smp", "1",
         "-accel", "tcg", "-cpu", "qemu64", "-display", "none",
         "-nodefaults", "-no-reboot", "-kernel", bzimage,
         "-initrd", os.path.join(args.guest, "initramfs.cpio.gz"),
         "-append", "console=ttyS0 panic=-1 nokaslr uctest=bench "
                    f"uctest.budget=2000000 uctest.rows={args.rows} "
                    f"{args.append}",
         "-serial", "null", "-serial", "null",
         "-gdb", f"tcp:127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        env = dict(os.environ, TRACE_PORT=str(port), TRACE_FUNC=args.func,
                   TRACE_SKIP=str(args.skip), TRACE_OUT=out)
        subprocess.run(["gdb", "-q", "-batch", "-nx", "-x",
                        os.path.abspath(__file__), vmlinux], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600, check=False)
    finally:
        qemu.kill()
        qemu.wait()
    if not os.path.exists(out):
        sys.exit(f"bench-trace: no trace of {args.func}: QEMU or gdb "
                 "failed, or ucbench does not reach it")
    with open(out) as f:
        lines = f.read().splitlines()
    os.unlink(out)
    split = lines.index("--")
    print(f"{args.func} in {os.path.basename(args.kernel.rstrip('/'))}"
          f" {args.append}: {lines[0]} instructions to user space")
    for line in lines[1:split]:
        n, name = line.split(" ", 1)
        print(f"{int(n):7d}  {name}")
    if args.calls:
        print("in the order run:")
        for line in lines[split + 1:]:
            n, name = line.split(" ", 1)
            print(f"{int(n):7d}  {name}")


if __name__ == "__main__":
    try:
        import gdb  # noqa: F401
    except ImportError:
        main()
    else:
        in_gdb()
