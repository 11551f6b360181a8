# learners_v5, the MLP on: its curves still rose at 42M on every probe (0.01-0.02 per eighth, memory 0.1), so its runs
# go on from their 42M checkpoint (the last one) to 83,886,080 steps in a copy of the table's folder (final.zip and
# model_card.json removed); the resume (at 42M) lies outside the last three eighths that last_stretch compares.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/lr-v3
date -u +"start %H:%M:%S"
mkdir -p mlp84/runs
cp table/fast_settings.json mlp84/
for probe in anticipation memory inference reading; do
  mkdir -p mlp84/runs/$probe
  for seed in 0 1 2 3 4; do
    if [ ! -d mlp84/runs/$probe/fast_mlp-s$seed ]; then
      cp -r table/runs/$probe/fast_mlp-s$seed mlp84/runs/$probe/
      rm mlp84/runs/$probe/fast_mlp-s$seed/final.zip mlp84/runs/$probe/fast_mlp-s$seed/model_card.json
    fi
  done
done
PYTHONPATH=$RUNS/lr-v3/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners --out $RUNS/lr-v3/mlp84 --timesteps 83886080 --learners fast_mlp --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2
date -u +"done %H:%M:%S"
