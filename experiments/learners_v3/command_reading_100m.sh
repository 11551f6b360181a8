# reading-v4: learners_v3's reading runs of fast_mlp (50,331,648 steps, still rising) copied, final.zip and
# model_card.json removed, and gone on from their last checkpoint to 100,663,296 steps.
RUNS=${RUNS:-$PWD/runs}  # the run folders (the repository ignores runs/)
cd "$(git rev-parse --show-toplevel)"  # the repository's root
date -u +"start %H:%M:%S"
nice -n 5 .venv/bin/python -m war_env.experiments.learners --out $RUNS/reading-v4 --timesteps 100663296 --learners fast_mlp --probes reading --seeds 0 1 2 3 4 --rounds 200 --workers 1 --jobs 1
date -u +"done %H:%M:%S"
# 16:20: stopped after seed 0 and continued as two processes, --train-only --seeds 1 2 and --seeds 3 4, then the command above for the table
