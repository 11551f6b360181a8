#!/bin/bash
# The sweep of learning rate and entropy bonus per fast learner (README.md here). Run from a folder outside the
# checkout, with CODE a frozen copy of the tree (git archive of the commit the README names, agents/ and scripts/
# copied into war_env/ as the install maps them), so that edits in the checkout cannot change a run. OUT receives one
# learners' table folder per cell: one learner, one probe level, two seeds, one setting. `command.sh slotA` and
# `command.sh slotB` ran beside each other, started by the script's full path (others() below); each table waits
# at its gate (gate() below), taken under a lock so that the two slots never start at the same moment.
set -u
CODE=${CODE:?the frozen copy of the code}
OUT=${OUT:?the folder for the tables}
PYTHON=${PYTHON:?the venv python}
TABLE="nice -n 5 env PYTHONPATH=$CODE $PYTHON -m war_env.scripts.learners"
SEEDS="100 101"  # training seeds no table uses (tables use 0-4); the table refuses a single seed
STEPS=4194304    # 2^22 steps a run: 25-150 s of training at the controls' speeds
runs() { pgrep -af '^[^ ]*python[^ ]* .*(fast_ppo|learners|no_card|level1_variants|war_checks)' | grep -vc pytest; }
mine() { pgrep -af "^[^ ]*python[^ ]* .*learners --out $OUT/" | grep -vc pytest; }
# other helpers' queues (their slot or command scripts, waiting or running); this script runs by its full path,
# which names the sweep, so it is not counted
others() { pgrep -af '(slot|command)[^ /]*\.sh' | grep -vc sweep; }
gate() {  # wait for a free slot, holding the lock until ours shows: no file at $QUIET (a pause for speed figures),
  # fewer than two training runs, and
  # while another helper's queue is alive, no more than one run of ours (their runs come first)
  exec 9> "$OUT/.gate.lock"
  flock 9
  while { [ -n "${QUIET:-}" ] && test -e "$QUIET"; } || [ "$(runs)" -ge 2 ] || { [ "$(mine)" -ge 1 ] && [ "$(others)" -ge 1 ]; }; do
    sleep 30
  done
}
table() {  # table NAME LEARNER PROBE -- FAST_SETTINGS...
  local name=$1 learner=$2 probe=$3; shift 4
  local sets=(); for s in "$@"; do sets+=(--fast-set "$s"); done
  if [ -f "$OUT/$name/learners.json" ]; then echo "$(date -u +%FT%TZ) done already $name"; return; fi
  gate
  echo "$(date -u +%FT%TZ) start $name (training runs before: $(runs))"
  /usr/bin/time -f "$name wall %e s" $TABLE --out "$OUT/$name" --learners "$learner" --probes "$probe" \
    --timesteps $STEPS --seeds $SEEDS --rounds 200 --workers 1 --jobs 1 "${sets[@]}" >> "$OUT/$name.log" 2>&1 9>&- &
  local pid=$!
  sleep 10; flock -u 9  # the run shows in pgrep by now: the other slot may look
  wait $pid
  local status=$?
  echo "$(date -u +%FT%TZ) end $name (exit $status)"
}
EVAL=eval_every=1048576  # best.zip: the greedy policy on 256 rounds from seed 3,000,000, every 1,048,576 steps
# Per learner, the settings held fixed (chosen from experiments/learner_setup and experiments/controls before the
# sweep ran): advantage normalisation always; observation normalisation where it helped (the stack and the MLP on
# reading; every LSTM recipe that passed memory had it) and not where it cost (the 24-frame stack on memory), nor on
# inference, where the level-1 controls ran without it; the cards one-hot on reading (the reading positive control);
# the LSTM's forget-gate bias 1 (its previous action is a learner setting --fast-set refuses).
MLP="normalize_advantage=true $EVAL"
STACK4="normalize_advantage=true normalize_observation=true one_hot_cards=true $EVAL"
STACK24="normalize_advantage=true $EVAL"
LSTM="normalize_advantage=true normalize_observation=true lstm_forget_bias=1 $EVAL"
# the LSTM again with its previous action, once --fast-set allowed it in a table without fast_stack24 (7d84d6f)
LSTM_PA="$LSTM previous_action=true"
sweep() {  # sweep LEARNER PROBE SHORT FIXED...: the four cells, learning rate x entropy bonus
  local learner=$1 probe=$2 short=$3; shift 3
  for lr in 0.0003 0.001; do
    for ent in 0 0.01; do
      table "${short}_lr${lr}_ent${ent}" "$learner" "$probe" -- learning_rate=$lr ent_coef=$ent "$@"
    done
  done
}
case "${1:-}" in
  slotA) sweep fast_mlp inference@2 mlp $MLP; sweep fast_stack24 memory@2 stack24 $STACK24 ;;
  slotB) sweep fast_stack4 reading@2 stack4 $STACK4; sweep fast_lstm memory@2 lstm $LSTM ;;
  stack24) sweep fast_stack24 memory@2 stack24 $STACK24 ;;
  mlp) sweep fast_mlp inference@2 mlp $MLP ;;
  lstm) sweep fast_lstm memory@2 lstm $LSTM ;;
  lstm_pa) sweep fast_lstm memory@2 lstm_pa $LSTM_PA ;;
  stack4) sweep fast_stack4 reading@2 stack4 $STACK4 ;;
  *) echo "usage: command.sh slotA|slotB|stack24|mlp|lstm|lstm_pa|stack4" >&2; exit 2 ;;
esac
