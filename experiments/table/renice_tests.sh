#!/bin/bash
# Keeps the helpers' test runs and profiling (pytest and everything in its process group, valgrind) below the
# table's training runs (nice 5): at the same or a lower nice value a test run took three quarters of a core from a
# training run.
while true; do
  for pid in $(pgrep -f "pytest|valgrind|pip install"); do
    pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
    [ -n "$pgid" ] && renice -n 10 -g "$pgid" >/dev/null 2>&1
  done
  sleep 3
done
