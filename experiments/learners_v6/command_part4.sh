# learners_v6 part 4 (started when part 3 ended, same code copy, the new seeding): the stack's reading runs, which
# learners_v5 called flat with the old seeding (all five seeds `blind`'s timing, so their rise was the deals'),
# trained again from scratch at learners_v5's 20,971,520 steps. (The LSTM's inference and reading runs would have
# followed; they did not fit in the session.)
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/v6
learners() {
  PYTHONPATH=$RUNS/v6/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners \
    --fast-set learning_rate=0.00025 --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 "$@"
}
date -u +"part 4 start %H:%M:%S"
learners --out $RUNS/v6/stack_reading --learners fast_stack4 --probes reading --budget fast_stack4=20971520
date -u +"part 4 done %H:%M:%S"
