"""Thread steering's default when the snapshot misses a neighbour (``_team.h``).

    python benchmarks/team_bursts.py --on 2 --off 2 --repeat 40

A process on the other CPU runs in bursts (spins ``--on`` ms, sleeps ``--off`` ms),
and the default mode reads a loadavg file that this process keeps true (2 runnable
threads while it spins, 1 while it sleeps): a quiet 2-CPU machine whose only other
program runs in bursts, even on a machine that other work keeps busy. Same table as
``benchmarks/team.py`` (the worker made to have last run on the caller's CPU before
each timed call). With ``--free`` the file always says 1: a count that leaves the
machine's other work out (LXCFS in a container). Needs Linux, OpenMP and two CPUs.
"""

import os
import subprocess
import sys
import tempfile
import time

import team

from cresize import _kernels

BUSY, IDLE = b"0.00 0.00 0.00 2/100 1\n", b"0.00 0.00 0.00 1/100 1\n"

NEIGHBOUR = """import os, time
os.sched_setaffinity(0, {{{cpu}}})
fd = os.open({path!r}, os.O_WRONLY)
while True:
    os.pwrite(fd, {busy!r}, 0)
    t = time.perf_counter()
    while time.perf_counter() - t < {on}:
        pass
    os.pwrite(fd, {idle!r}, 0)
    time.sleep({off})
"""


def run(on, off, repeat, free=False):
    everywhere = os.sched_getaffinity(0)
    with tempfile.NamedTemporaryFile(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as f:
        f.write(IDLE)
        f.flush()
        code = NEIGHBOUR.format(
            cpu=max(everywhere), path=f.name, busy=BUSY, idle=IDLE, on=on / 1e3, off=off / 1e3
        )
        p = None if free else subprocess.Popen([sys.executable, "-c", code])
        time.sleep(0.3)
        before = _kernels._team_loadavg(f.name)
        try:
            return team._table(repeat, everywhere, min(everywhere))
        finally:
            _kernels._team_loadavg(before)
            if p is not None:
                p.kill()
                p.wait()


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--on", type=float, default=2.0, help="ms the neighbour spins")
    parser.add_argument("--off", type=float, default=2.0, help="ms the neighbour sleeps")
    parser.add_argument("--repeat", type=int, default=40, help="timed calls per setting")
    parser.add_argument("--free", action="store_true", help="no neighbour; the file says 1")
    args = parser.parse_args(argv)
    print(run(args.on, args.off, args.repeat, args.free))


if __name__ == "__main__":
    main()
