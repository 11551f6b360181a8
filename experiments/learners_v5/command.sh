# learners_v5 (lr-v3): the whole table at one learning rate, 2.5e-4 for every fast learner (--fast-set), every probe,
# five seeds: fast_mlp at 41,943,040 steps, fast_stack4 and fast_lstm at 20,971,520, SB3's PPO and DQN at 100,000.
# The runs learners_v4 already trained at that rate are copied in whole (the MLP's 42M runs of mlp_42m/, the LSTM's
# 21M runs of the table); new: the stack on every probe, the MLP and the LSTM on memory, SB3's PPO and DQN.
# Run from a copy of war_env (code/, as at commit d3239c5) so that editing the checkout cannot change a run in flight.
REPO=$PWD  # the repository's root, where this starts
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd $RUNS/lr-v3
date -u +"start %H:%M:%S"
mkdir -p table/runs
cp $RUNS/lr-v2/table/fast_settings.json table/
for probe in anticipation inference reading; do
  mkdir -p table/runs/$probe
  for seed in 0 1 2 3 4; do
    cp -r $RUNS/lr-v2/mlp42/runs/$probe/fast_mlp-s$seed table/runs/$probe/
    cp -r $RUNS/lr-v2/table/runs/$probe/fast_lstm-s$seed table/runs/$probe/
  done
done
PYTHONPATH=$RUNS/lr-v3/code nice -n 5 $REPO/.venv/bin/python -m war_env.experiments.learners --out $RUNS/lr-v3/table --timesteps 100000 --budget fast_mlp=41943040 --budget fast_stack4=20971520 --budget fast_lstm=20971520 --learners fast_mlp fast_stack4 fast_lstm ppo dqn --seeds 0 1 2 3 4 --rounds 200 --workers 2 --jobs 2 --fast-set learning_rate=0.00025
date -u +"done %H:%M:%S"
