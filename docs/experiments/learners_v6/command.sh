# learners_v6: learners_v5's table with every curve that still rose trained on, built by one command from the folders
# already trained (--continue-from, first folder holding a run wins): the MLP's runs at 83,886,080 steps on every probe
# (mlp84, learners_v5/mlp_84m/command.sh), the stack's and the LSTM's memory runs at 41,943,040 (memory42,
# learners_v5/memory_42m/), the rest of learners_v5's table (table). Runs short of their budget go on from their last
# checkpoint: the stack on memory to 83,886,080 and on inference to 41,943,040 (both still rose at their v5 budget),
# the MLP on memory to 167,772,160 (still rising at 84M). Every resume lies outside the last three eighths that
# last_stretch compares. Run from a copy of war_env (code-v6/, as at commit 7c9e835).
cd /work/runs/lr-v3
date -u +"start %H:%M:%S"
PYTHONPATH=/work/runs/lr-v3/code-v6 nice -n 5 /work/main/.venv/bin/python -m war_env.experiments.learners --out /work/runs/lr-v3/v6 --continue-from /work/runs/lr-v3/mlp84 /work/runs/lr-v3/memory42 /work/runs/lr-v3/table --timesteps 100000 --budget fast_mlp=83886080 --budget fast_mlp@memory=167772160 --budget fast_stack4=20971520 --budget fast_stack4@memory=83886080 --budget fast_stack4@inference=41943040 --budget fast_lstm=20971520 --budget fast_lstm@memory=41943040 --learners fast_mlp fast_stack4 fast_lstm ppo dqn --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2
date -u +"done %H:%M:%S"
