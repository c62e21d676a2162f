#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# One timed run of a command, as time(1) takes it (fork, exec, wait4) but
# to the microsecond: time(1) prints hundredths, an eighth of a run of
# 0.08 s. For the benchmarks (bench-report-speed.sh, bench-report-pair.sh),
# not the tests. Peak RSS has a floor of python's own, about 10 MB: the
# child's maximum counts what it had before the exec.
#
# As a command: timed_run.py OUT CMD...: CMD's wall time (s), peak RSS
# (KiB) and CPU time (user + sys, s, its waited-for children's too)
# written to OUT on one line; exit 0 when CMD exited 0, else 1.
import os
import sys
import time


def timed_run(argv, stdout=None, stderr=None):
    """(exit code, wall s, peak RSS KiB, CPU s) of one run of argv; its
    output to the given file descriptors, else to ours."""
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            if stdout is not None:
                os.dup2(stdout, 1)
            if stderr is not None:
                os.dup2(stderr, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    return (os.waitstatus_to_exitcode(status), wall, ru.ru_maxrss,
            ru.ru_utime + ru.ru_stime)


if __name__ == "__main__":
    code, wall, rss, cpu = timed_run(sys.argv[2:])
    with open(sys.argv[1], "w") as f:
        f.write("%.6f %d %.6f\n" % (wall, rss, cpu))
    sys.exit(0 if code == 0 else 1)
