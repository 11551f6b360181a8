# learners_v4 (lr-v2): the fast MLP and LSTM at a quarter of the learning rate (2.5e-4, CleanRL's; the table's is 1e-3)
# on the probes where their curves swung or still rose at 21M (anticipation, inference, reading), five seeds, 21M
# steps, everything else as learners_v2. Run from a copy of war_env (code/) so
# that editing the checkout cannot change a run in flight.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/lr-v2  # code/war_env: a copy of war_env as at commit 9d9ca99 but for the line that makes the --out folder
date -u +"start %H:%M:%S"
PYTHONPATH=$RUNS/lr-v2/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners --out $RUNS/lr-v2/table --timesteps 20971520 --learners fast_mlp fast_lstm --probes anticipation inference reading --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 --fast-set learning_rate=0.00025
date -u +"done %H:%M:%S"
