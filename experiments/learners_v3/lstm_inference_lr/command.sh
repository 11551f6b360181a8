# lr-v1: is the LSTM's unstable inference curve (learners_v2: its last stretch -0.46 [-15.55, 2.73], 4.76 below the
# oracle; 0 of 5 runs show the capability at 21M) the constant learning rate of 1e-3? The same learner, three seeds, a
# quarter of it (2.5e-4, CleanRL's PPO's), everything else as in the table.
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd "$(git rev-parse --show-toplevel)"  # the repository's root
date -u +"start %H:%M:%S"
run() { nice -n 5 .venv/bin/war-train --algo fast_ppo --env-id WarInference-v0 --set lstm_hidden_size=64 --set learning_rate=0.00025 --set checkpoint_every=655360 --timesteps 20971520 --seed $1 --bench-rounds 0 --run-dir $RUNS/lr-v1/runs/inference/fast_lstm-s$1 > $RUNS/lr-v1/s$1.log 2>&1; date -u +"seed $1 done %H:%M:%S"; }
run 0 & run 1 & wait
run 2
