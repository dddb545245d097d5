#!/usr/bin/env bash
# test-jobs.sh — how many tests ctest runs at once: one more than the cores. The tests mostly wait on
# browsers, sites and timers (at one per core the CPU is about a third used); on 2 cores the -Werror half
# took 1,587 s at -j2 and 1,109 s at -j3 (tests/bench/RESULTS.md "The suite's time"). Read by
# deploy/quickstart.sh test and tests/bench/suite_under_load.sh, so that both run the suite alike.
echo $(($(nproc 2>/dev/null || echo 2) + 1))
