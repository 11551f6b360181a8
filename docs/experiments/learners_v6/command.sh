# learners_v6: the curves learners_v5 left rising, trained from scratch (learners_v5's run folders were not kept):
# the stack on memory to 83,886,080 steps and on inference to 41,943,040, then the MLP on every probe to 83,886,080;
# two runs at once, the code a copy of the commit in code/COMMIT.
cd /work/runs/v6
learners() {
  PYTHONPATH=/work/runs/v6/code nice -n 5 /work/main/.venv/bin/python -m war_env.experiments.learners \
    --fast-set learning_rate=0.00025 --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 "$@"
}
date -u +"start %H:%M:%S"
learners --out /work/runs/v6/stack --learners fast_stack4 --probes memory inference \
  --budget fast_stack4=41943040 --budget fast_stack4@memory=83886080
date -u +"stack done %H:%M:%S"
learners --out /work/runs/v6/mlp --learners fast_mlp --budget fast_mlp=83886080
date -u +"done %H:%M:%S"
