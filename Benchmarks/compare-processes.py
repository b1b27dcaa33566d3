#!/usr/bin/env python3
"""Whole-process timing of a few commands, interleaved: every round runs each command once, in a random
order, so drift in the machine's load hits them alike. Prints each command's median wall time and its
ratio to the LAST command (the baseline). A measurement, not a test.

    python3 Benchmarks/compare-processes.py 100 "biometrics-vault show k" "secret-tool lookup service s username k"

stdout and stderr of the commands go to /dev/null; a command that exits non-zero stops the run.
"""
import os
import random
import shlex
import statistics
import sys
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = [shlex.split(command) for command in sys.argv[2:]]
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]

    def run(command: list[str]) -> float:
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(command[0], command, os.environ, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            sys.exit(f"{shlex.join(command)} failed (wait status {status})")
        return (time.perf_counter_ns() - start) / 1e6

    for command in commands:  # warm-up: page cache, daemons
        for _ in range(3):
            run(command)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(rounds):
        order = list(range(len(commands)))
        random.shuffle(order)
        for index in order:
            times[index].append(run(commands[index]))
    baseline = statistics.median(times[-1])
    for command, samples in zip(commands, times):
        median = statistics.median(samples)
        q1, _, q3 = statistics.quantiles(samples, n=4)
        print(f"{median:8.2f} ms (quartiles {q1:.2f}-{q3:.2f})  {median / baseline:5.2f}x  {shlex.join(command)}")


if __name__ == "__main__":
    main()
