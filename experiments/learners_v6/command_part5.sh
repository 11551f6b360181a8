# learners_v6 part 5 (after part 4, same code copy, the new seeding): the MLP's inference runs, still rising at
# 41,943,040 with the new seeding (+0.007 [0.006, 0.008] per eighth, every seed), trained on to 83,886,080.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/v6
learners() {
  PYTHONPATH=$RUNS/v6/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners \
    --fast-set learning_rate=0.00025 --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 "$@"
}
date -u +"part 5 start %H:%M:%S"
learners --out $RUNS/v6/mlp_inference --learners fast_mlp --probes inference --budget fast_mlp=83886080 \
  --continue-from $RUNS/v6/mlp_inference_reading
date -u +"part 5 done %H:%M:%S"
