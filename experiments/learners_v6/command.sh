# learners_v6: the curves learners_v5 left rising, trained from scratch (learners_v5's run folders were not kept).
# Two runs at once; the code a copy of a commit (code/COMMIT).
# 1. (15:15, commit 8e52c18: sub-env i of a run seeded seed + i) the stack on memory to 83,886,080 steps and on
#    inference to 41,943,040: stack/.
# 2. (16:15, commit 4d66b07: sub-envs seeded from SeedSequence(seed, steps)) the MLP on memory and anticipation to
#    83,886,080 (all four probes would not fit in the session): mlp/; then the stack on inference again to 41,943,040
#    with the new seeding: stack_inference/.
# 3. (20:05, same code) the MLP's anticipation runs, still rising at 83,886,080, trained on to 167,772,160:
#    mlp_anticipation/; the MLP on inference and reading to 41,943,040 with the new seeding (learners_v5's, old-seeded,
#    rose 0.008-0.010 there): mlp_inference_reading/; the MLP's memory models played sampled: mlp/learners-sampled.*.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/v6
learners() {
  PYTHONPATH=$RUNS/v6/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners \
    --fast-set learning_rate=0.00025 --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 "$@"
}
date -u +"start %H:%M:%S"
if [ "$1" = 3 ]; then
  learners --out $RUNS/v6/mlp_anticipation --learners fast_mlp --probes anticipation \
    --budget fast_mlp=167772160 --continue-from $RUNS/v6/mlp
  date -u +"mlp_anticipation done %H:%M:%S"
  learners --out $RUNS/v6/mlp_inference_reading --learners fast_mlp --probes inference reading \
    --budget fast_mlp=41943040
  date -u +"mlp_inference_reading done %H:%M:%S"
  learners --out $RUNS/v6/mlp --learners fast_mlp --probes memory anticipation --budget fast_mlp=83886080 \
    --actions sampled
  date -u +"done %H:%M:%S"
  exit
fi
if [ "$1" != 2 ]; then
  learners --out $RUNS/v6/stack --learners fast_stack4 --probes memory inference \
    --budget fast_stack4=41943040 --budget fast_stack4@memory=83886080
  date -u +"stack done %H:%M:%S"
fi
learners --out $RUNS/v6/mlp --learners fast_mlp --probes memory anticipation --budget fast_mlp=83886080
date -u +"mlp done %H:%M:%S"
learners --out $RUNS/v6/stack_inference --learners fast_stack4 --probes inference --budget fast_stack4=41943040
date -u +"done %H:%M:%S"
