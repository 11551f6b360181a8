# learners_v4, the MLP on: its curves still rose at 21M at the smaller rate, so its runs go on from their 21M
# checkpoint (the last one) to 41,943,040 steps in a copy of the table's folder (final.zip and model_card.json
# removed); the resume lies outside the last three eighths, so last_stretch compares two eighths of uncut training.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/lr-v2
date -u +"start %H:%M:%S"
mkdir -p mlp42/runs
cp table/fast_settings.json mlp42/
for probe in anticipation inference reading; do
  mkdir -p mlp42/runs/$probe
  for seed in 0 1 2 3 4; do
    cp -r table/runs/$probe/fast_mlp-s$seed mlp42/runs/$probe/
    rm mlp42/runs/$probe/fast_mlp-s$seed/final.zip mlp42/runs/$probe/fast_mlp-s$seed/model_card.json
  done
done
PYTHONPATH=$RUNS/lr-v2/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners --out $RUNS/lr-v2/mlp42 --timesteps 41943040 --learners fast_mlp --probes anticipation inference reading --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2
date -u +"done %H:%M:%S"
