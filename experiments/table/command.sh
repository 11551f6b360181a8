#!/bin/bash
# The learners' table as capability x level (README.md here). Run from a folder outside the checkout, with CODE a
# frozen copy of the tree (git archive of the commit the README names, agents/ and scripts/ copied into war_env/ as
# the install maps them), so that edits in the checkout cannot change a run. OUT receives one learners' table folder
# per queue; two queues ran beside each other, one training run each, niced (the plan below says which and when).
set -u
CODE=${CODE:?the frozen copy of the code}
OUT=${OUT:?the folder for the tables}
PYTHON=${PYTHON:?the venv python}
TABLE="nice -n 5 env PYTHONPATH=$CODE $PYTHON -m war_env.scripts.learners"
SEEDS="0 1 2 3 4"
table() {  # table NAME STEPS --learners ... --probes ...
  local name=$1 steps=$2; shift 2
  echo "$(date -u +%FT%TZ) start $name"
  /usr/bin/time -f "$name wall %e s" $TABLE --out "$OUT/$name" --timesteps "$steps" --seeds $SEEDS --rounds 200 \
    --workers 1 --jobs 1 "$@" >> "$OUT/$name.log" 2>&1
  local status=$?
  echo "$(date -u +%FT%TZ) end $name (exit $status)"
}
case "${1:-}" in
  # The plan first run (06:57-07:19 UTC): `memory`, a table per memory level (1 and 3 with every fast learner, 5 with
  # the 24-frame stack and the LSTM), beside `others`, the MLP on anticipation@1,2,3 and inference@1,2,4 in one
  # table, then the 4-frame stack on reading@1,2,4 and the LSTM on inference@1,2,4. At the pace the first runs
  # showed (two to three times the sweep's, beside the helpers' tests) it would have taken about seven hours, so at
  # 07:20 both queues were stopped (their running tables went on: memory1 to its end, mlp cut off and continued by
  # `b` below, its finished runs kept) and the table cut to what fits, a level at a time (README.md, "Cut"):
  memory)
    table memory1 4194304 --learners fast_mlp fast_stack4 fast_stack24 fast_lstm --probes memory@1
    "$0" a ;;
  a) table memory3a 4194304 --learners fast_stack24 fast_lstm --probes memory@3 ;;
  others)
    table mlp 6291456 --learners fast_mlp --probes anticipation@1 anticipation@2 anticipation@3 inference@1 \
      inference@2 inference@4 ;;
  b)
    table mlp 6291456 --learners fast_mlp --probes anticipation@1 inference@1
    table memory3b 4194304 --learners fast_mlp fast_stack4 --probes memory@3
    table mlp 6291456 --learners fast_mlp --probes anticipation@1 anticipation@3 inference@1 inference@4 ;;
  # when `b` ended (started by hand after it): the MLP's third levels; after `a`, the memory@1 runs of the 24-frame
  # stack and the LSTM trained on to twice the budget (their curves still rose at 4,194,304 steps, and the table
  # cuts levels rather than flatness: memory@5 was left out, until `e` and `f`). Inference's third level is 3, not 2: the sweep chose
  # the MLP's settings on inference@2 (on seeds 100-101), and the table keeps off the sweep's levels (the mlp
  # folder's inference@2 run of seed 0, from the first plan, stays out of its table)
  c)
    table mlp 6291456 --learners fast_mlp --probes anticipation@1 anticipation@2 anticipation@3 inference@1 \
      inference@3 inference@4
    table memory1_8m 8388608 --learners fast_stack24 --probes memory@1 --continue-from "$OUT/memory1" ;;
  d) table memory1_8m_lstm 8388608 --learners fast_lstm --probes memory@1 --continue-from "$OUT/memory1" ;;
  # once `c` had ended, with time left in the session: memory@5 after all, the 24-frame stack after `c`, the LSTM
  # after `d`. (`d` waited for `a` with a loop that also matched itself, so it started only at 08:41, by hand, with
  # `f` after it)
  e) table memory5a 4194304 --learners fast_stack24 --probes memory@5 ;;
  f) table memory5b 4194304 --learners fast_lstm --probes memory@5 ;;
  # A second session (README.md, "The second session"), from a frozen copy of e2bad27 on a new machine: reading at
  # three levels with its positive control's learner, and inference with a learner that remembers reactions. Reading
  # keeps off level 2, where the sweep chose the 4-frame stack's settings
  g) table reading 6291456 --learners fast_stack4 --probes reading@1 reading@3 reading@4 ;;
  h) table inference_lstm 6291456 --learners fast_lstm --probes inference@1 inference@3 inference@4 ;;
  # beside `g` and `h` from 14:26 UTC (a third run on two cores: the queues were paced to end by about 15:50): the
  # MLP's inference@4, none of whose runs passed while its curve still rose at 6,291,456 steps, trained afresh to
  # twice the budget (the first session's checkpoints stayed on its machine; anticipation@3, also rising, did not
  # fit). After `g`: the 24-frame stack's memory@3, still rising at 4,194,304
  i) table mlp_12m 12582912 --learners fast_mlp --probes inference@4 ;;
  j) table memory3a_8m 8388608 --learners fast_stack24 --probes memory@3 ;;
  *) echo "usage: command.sh memory|a|b|c|d|e|f|g|h|i|j|others" >&2; exit 2 ;;
esac
