# learners_v3: the curves that still rose at 20,971,520 steps in learners_v2, trained from scratch further.
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd "$(git rev-parse --show-toplevel)"  # the repository's root
date -u +"start %H:%M:%S"
nice -n 5 .venv/bin/python -m war_env.experiments.learners --out $RUNS/mlp-v3 --timesteps 100000 --budget fast_mlp=50331648 --learners fast_mlp --probes memory reading --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2
date -u +"mlp done %H:%M:%S"
# The LSTM's memory runs below were stopped at 12,582,912 steps (seeds 0 and 1) to leave the machine to the reading
# runs (learners_v3/mlp_reading_100m); they gave no result. memory_v2 (../learners_v2/) has the LSTM at 33.5M.
nice -n 5 .venv/bin/python -m war_env.experiments.learners --out $RUNS/lstm-memory-v3 --timesteps 100000 --budget fast_lstm=50331648 --learners fast_lstm --probes memory --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2
date -u +"lstm done %H:%M:%S"
