# learners_v5, memory on: the stack's and the LSTM's memory curves still rose over the last eighth at 21M, so their runs
# go on from their 21M checkpoint (the last one) to 41,943,040 steps, the MLP's budget, in a copy of the table's folder
# (final.zip and model_card.json removed); the resume lies outside the last three eighths that last_stretch compares.
# Seeds as their 21M runs finished (`bash command.sh train-only SEED...`: one run at a time, beside the
# table's last seeds; seeds 0 1, then 2 3), then all five with the suite (`bash command.sh`).
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/lr-v3
copy_runs() {
  mkdir -p memory42/runs/memory
  cp table/fast_settings.json memory42/
  for seed in "$@"; do
    for learner in fast_stack4 fast_lstm; do
      if [ ! -d memory42/runs/memory/$learner-s$seed ]; then
        cp -r table/runs/memory/$learner-s$seed memory42/runs/memory/
        rm memory42/runs/memory/$learner-s$seed/final.zip memory42/runs/memory/$learner-s$seed/model_card.json
      fi
    done
  done
}
run() {
  PYTHONPATH=$RUNS/lr-v3/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners --out $RUNS/lr-v3/memory42 --timesteps 41943040 --learners fast_stack4 fast_lstm --probes memory --rounds 200 --workers 2 "$@"
}
date -u +"start %H:%M:%S"
if [ "$1" = train-only ]; then
  shift
  copy_runs "$@"
  run --seeds "$@" --jobs 1 --train-only
else
  copy_runs 0 1 2 3 4
  run --seeds 0 1 2 3 4 --jobs 2
fi
date -u +"done %H:%M:%S"
