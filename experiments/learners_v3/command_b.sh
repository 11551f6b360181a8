# learners_v3, part b: fast_mlp from scratch on anticipation and inference at 20,971,520 steps (learners_v2's MLP
# runs were resumed at 16,777,216, inside the last stretch they are compared on).
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd "$(git rev-parse --show-toplevel)"  # the repository's root
date -u +"start %H:%M:%S"
nice -n 5 .venv/bin/python -m war_env.experiments.learners --out $RUNS/mlp-v3b --timesteps 20971520 --learners fast_mlp --probes anticipation inference --seeds 0 1 2 3 4 --rounds 200 --workers 1 --jobs 1
date -u +"done %H:%M:%S"
