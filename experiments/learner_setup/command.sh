#!/bin/bash
# The learner set-up measurements (README.md here), from the repository's root. They ran from a frozen copy of the
# code (CODE: the tree the README names), so that edits in the checkout could not change a run; OUT receives one
# learners' table folder per measurement. Two slots ran at once (nice -n 5), each a sequence of tables with one
# learner on one probe; each table scores its runs' final models with the suite (200 paired rounds, seeds 0-199).
set -u
CODE=${CODE:-runs/setup/code}
OUT=${OUT:-runs/setup/out}
PYTHON=${PYTHON:-.venv/bin/python}
PY="nice -n 5 env PYTHONPATH=$CODE $PYTHON -m war_env.experiments.learners"
table() {  # table NAME LEARNER PROBE STEPS SEEDS... -- FAST_SETTINGS...
  local name=$1 learner=$2 probe=$3 steps=$4; shift 4
  local seeds=(); while [ "$1" != "--" ]; do seeds+=("$1"); shift; done; shift
  local sets=(); for s in "$@"; do sets+=(--fast-set "$s"); done
  echo "$(date -u +%FT%TZ) start $name seeds ${seeds[*]}"
  /usr/bin/time -f "$name wall %e s" $PY --out "$OUT/$name" --learners "$learner" --probes "$probe" \
    --timesteps "$steps" --seeds "${seeds[@]}" --rounds 200 --workers 1 --jobs 1 "${sets[@]}" \
    >> "$OUT/$name.log" 2>&1
  echo "$(date -u +%FT%TZ) end $name (exit $?)"
}
EVAL=eval_every=1048576  # best.zip: the greedy policy on 256 rounds from seed 3,000,000, every 1,048,576 steps
ADVENT="normalize_advantage=true ent_coef=0.01"

slot1() {
  # (a) the 4-frame stack on reading at lr 1e-3, 6,291,456 steps, seeds 0-2: adv-norm + entropy 0.01, those with
  # observation normalisation, and the table's settings (no adv-norm, no entropy bonus, raw observations)
  table a_advent fast_stack4 reading 6291456 0 1 2 -- learning_rate=0.001 $ADVENT $EVAL
  table a_advent_obs fast_stack4 reading 6291456 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true $EVAL
  table a_table fast_stack4 reading 6291456 0 1 2 -- learning_rate=0.001 $EVAL
}
slot2() {
  # (b) the 24-frame stack on memory, lr 1e-3, adv-norm + entropy 0.01 + the previous action, 4,194,304 steps
  table b_stack24 fast_stack24 memory 4194304 0 1 2 -- learning_rate=0.001 $ADVENT previous_action=true $EVAL
  # (c) the LSTM on memory with the forget-gate bias 1 and the previous action, lr 2.5e-4, 4,194,304 steps
  table c_lstm fast_lstm memory 4194304 0 1 2 -- learning_rate=0.00025 lstm_forget_bias=1 previous_action=true $EVAL
}
slot3() {
  # (b') which change made the 24-frame stack pass: without the previous action ...
  table b_stack24_noprev fast_stack24 memory 4194304 0 1 2 -- learning_rate=0.001 $ADVENT $EVAL
}
slot4() {
  # ... and without adv-norm + entropy
  table b_stack24_prev_only fast_stack24 memory 4194304 0 1 2 -- learning_rate=0.001 previous_action=true $EVAL
}
slot5() {
  # (a') observation normalisation alone on reading (the table's settings otherwise)
  table a_obs_only fast_stack4 reading 6291456 0 1 2 -- learning_rate=0.001 normalize_observation=true $EVAL
  # (c') the LSTM with every setting at the rate the 24-frame stack passed with: adv-norm + entropy, observation
  # normalisation, forget bias 1, previous action
  table c_lstm_all fast_lstm memory 4194304 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true \
    lstm_forget_bias=1 previous_action=true $EVAL
}
slot6() {
  # (c'') the same without the forget-gate bias and the previous action
  table c_lstm_advobs fast_lstm memory 4194304 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true $EVAL
  # (a'') the MLP on reading with adv-norm + entropy and observation normalisation (it has no memory: only reading
  # the table passes the line)
  table a_mlp_all fast_mlp reading 6291456 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true $EVAL
}
slot7() {
  # (b2) two more seeds of (b), then the 24-frame stack with observation normalisation too
  table b_stack24 fast_stack24 memory 4194304 0 1 2 3 4 -- learning_rate=0.001 $ADVENT previous_action=true $EVAL
  table b_stack24_all fast_stack24 memory 4194304 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true \
    previous_action=true $EVAL
}
slot8() {
  # (c4) the LSTM with every setting on three times the budget
  table c_lstm_all_12m fast_lstm memory 12582912 0 1 2 -- learning_rate=0.001 $ADVENT normalize_observation=true \
    lstm_forget_bias=1 previous_action=true $EVAL
}
slot9() {
  # (d) War-v0 (458,752 steps) and WarLatency-v0 (3,014,656 steps), five seeds each, with adv-norm + entropy 0.01
  # and observation normalisation: do the checks of docs/results/training.md still reach the oracle?
  local sets="normalize_advantage=true ent_coef=0.01 normalize_observation=true"
  echo "$(date -u +%FT%TZ) start d_war"
  nice -n 5 env PYTHONPATH=$CODE $PYTHON experiments/learner_setup/war_checks.py "$OUT/d_war" 400000 War-v0 5 $sets \
    > "$OUT/d_war.log" 2>&1
  nice -n 5 env PYTHONPATH=$CODE $PYTHON experiments/learner_setup/war_checks.py "$OUT/d_war" 3000000 WarLatency-v0 5 \
    $sets >> "$OUT/d_war.log" 2>&1
  echo "$(date -u +%FT%TZ) end d_war"
}
case "${1:-}" in
  slot1) slot1 ;;
  slot2) slot2 ;;
  slot3) slot3 ;;
  slot4) slot4 ;;
  slot5) slot5 ;;
  slot6) slot6 ;;
  slot7) slot7 ;;
  slot8) slot8 ;;
  slot9) slot9 ;;
  *) echo "usage: command.sh slot1|...|slot9" >&2; exit 2 ;;
esac
