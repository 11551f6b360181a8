#!/bin/bash
# The trained controls (README.md here). Run from a folder outside the checkout (the checkout's root would put its
# own war_env first on sys.path), with CODE a frozen copy of the tree (git archive of the commit the README names,
# agents/ and scripts/ copied into war_env/ as the install maps them), so that edits in the checkout cannot change
# a run. OUT receives one learners' table folder per control. Two slots run at once, niced.
set -u
CODE=${CODE:?the frozen copy of the code}
OUT=${OUT:?the folder for the tables}
PYTHON=${PYTHON:?the venv python}
PY="nice -n 5 env PYTHONPATH=$CODE $PYTHON"
TABLE=${TABLE:-$PY -m war_env.scripts.learners}
HERE=$(cd "$(dirname "$0")" && pwd)
# reading_no_card: the learners' table with the reading probe's row hiding opponent_card (reading_no_card.py); its
# suite's own oracle cannot read the card, so score_no_card.py scores its models against the reading suite's oracle
NO_CARD="$PY $HERE/reading_no_card.py"
# level1_variants: the negative controls of anticipation and inference at level 1 (level1_variants.py)
VARIANTS="$PY $HERE/level1_variants.py"
table() {  # table NAME LEARNER PROBE STEPS SEEDS... -- FAST_SETTINGS...
  local name=$1 learner=$2 probe=$3 steps=$4; shift 4
  local seeds=(); while [ "$1" != "--" ]; do seeds+=("$1"); shift; done; shift
  local sets=(); for s in "$@"; do sets+=(--fast-set "$s"); done
  echo "$(date -u +%FT%TZ) start $name seeds ${seeds[*]}"
  /usr/bin/time -f "$name wall %e s" $TABLE --out "$OUT/$name" --learners "$learner" --probes "$probe" \
    --timesteps "$steps" --seeds "${seeds[@]}" --rounds 200 --workers 1 --jobs 1 "${sets[@]}" ${CONTINUE:-} \
    >> "$OUT/$name.log" 2>&1
  local status=$?
  echo "$(date -u +%FT%TZ) end $name (exit $status)"
}
EVAL=eval_every=1048576  # best.zip: the greedy policy on 256 rounds from seed 3,000,000, every 1,048,576 steps
ADVENT="learning_rate=0.001 normalize_advantage=true ent_coef=0.01"
READING="$ADVENT normalize_observation=true $EVAL"
MEMORY="$ADVENT $EVAL"  # fast_stack24 sees its previous action (a learner setting)
LEVEL1="$ADVENT $EVAL"  # anticipation@1 and inference@1
UNIFORM="$READING one_hot_cards=true"  # the reading settings, for every family (README.md, "One set of settings ...")

case "${1:-}" in
  reading_pos) table reading_pos fast_stack4 reading 6291456 0 1 2 3 4 -- $READING ;;
  memory_pos) table memory_pos fast_stack24 memory@1 4194304 0 1 2 3 4 -- $MEMORY ;;
  # the negative controls: the same learner with the deciding field hidden; the MLP (no memory) on memory@1
  reading_neg) TABLE=$NO_CARD table reading_neg fast_stack4 reading_no_card 6291456 0 1 2 3 4 -- $READING ;;
  memory_neg) table memory_neg fast_mlp memory@1 4194304 0 1 2 -- $MEMORY ;;
  # more reading negatives, learners with more memory: the 24-frame stack, and the LSTM with its memory settings
  reading_neg_stack24) TABLE=$NO_CARD table reading_neg_stack24 fast_stack24 reading_no_card 6291456 0 1 2 -- $READING ;;
  # (the LSTM's previous action is refused by --fast-set at this commit: a learner setting)
  reading_neg_lstm) TABLE=$NO_CARD table reading_neg_lstm fast_lstm reading_no_card 6291456 0 1 2 -- $READING \
    lstm_forget_bias=1 ;;
  # the memory negative control never pressed at 4,194,304 steps: the same runs on to 16,777,216
  memory_neg_16m) CONTINUE="--continue-from $OUT/memory_neg" table memory_neg_16m fast_mlp memory@1 16777216 0 1 2 \
    -- $MEMORY ;;
  # the reading positive control failed at 6,291,456 steps (README.md): the same runs trained on to 20,971,520 steps
  # (the issue's largest budget) from their last checkpoints, in two tables of seeds 0-2 and 3-4
  reading_pos_20m_a) CONTINUE="--continue-from $OUT/reading_pos" table reading_pos_20m_a fast_stack4 reading 20971520 0 1 2 -- $READING ;;
  reading_pos_20m_b) CONTINUE="--continue-from $OUT/reading_pos" table reading_pos_20m_b fast_stack4 reading 20971520 3 4 -- $READING ;;
  # ... and two changes tried at 6,291,456 steps: the stack with ReLU units; the MLP (no memory, which the reading
  # probe does not reward) with the recipe measured on WarTableReading-v1
  reading_pos_relu) table reading_pos_relu fast_stack4 reading 6291456 0 1 2 -- $READING activation=relu ;;
  reading_pos_mlp) table reading_pos_mlp fast_mlp reading 6291456 0 1 2 -- $READING ;;
  # the reading controls with the card fields one-hot (fast_ppo's one_hot_cards; README.md, "One-hot cards"): the
  # positive control as reading_pos, then its negative, the card hidden (it one-hot-encodes as "no card")
  reading_pos_onehot) table reading_pos_onehot fast_stack4 reading 6291456 0 1 2 3 4 -- $READING one_hot_cards=true ;;
  reading_neg_onehot) TABLE=$NO_CARD table reading_neg_onehot fast_stack4 reading_no_card 6291456 0 1 2 3 4 -- \
    $READING one_hot_cards=true ;;
  score_no_card_onehot) $PY "$HERE/score_no_card.py" "$OUT"/reading_neg_onehot/suites/reading_no_card-*/reading_no_card \
    "$OUT"/reading_pos_onehot/suites/reading-*/reading ;;
  # scoring the reading negative control against the reading probe's oracle (the same 200 deals)
  score_no_card) for name in reading_neg reading_neg_stack24 reading_neg_lstm; do
      [ -d "$OUT/$name" ] || continue
      echo "## $name"
      $PY "$HERE/score_no_card.py" "$OUT"/$name/suites/reading_no_card-*/reading_no_card \
        "$OUT"/reading_pos/suites/reading-*/reading
    done ;;
  # anticipation and inference at level 1 (README.md, "Anticipation and inference at level 1"); LEVEL1 is the recipe
  # without observation normalisation. The positive controls: the MLP (both observations show what the optimum
  # needs: the opponent's clock and the presses in flight; the opponent's last reaction)
  anticipation_pos) table anticipation_pos fast_mlp anticipation@1 6291456 0 1 2 3 4 -- $LEVEL1 ;;
  inference_pos) table inference_pos fast_mlp inference@1 6291456 0 1 2 3 4 -- $LEVEL1 ;;
  # the negative controls (level1_variants.py): the same learner where a press counts only while its own turn is open
  # (anticipation_no_ahead), or with opponent_reaction hidden (inference_no_reaction: what blind sees)
  # (anticipation_neg, the first try, masked presses only while its own turn was closed: the models reached the
  # oracle's level, as its press goes out while its turn is still open; anticipation_after_open masks a press in
  # flight too)
  anticipation_neg) TABLE=$VARIANTS table anticipation_neg fast_mlp anticipation_no_ahead 6291456 0 1 2 -- $LEVEL1 ;;
  anticipation_neg_after_open) TABLE=$VARIANTS table anticipation_neg_after_open fast_mlp anticipation_after_open \
    6291456 0 1 2 -- $LEVEL1 ;;
  inference_neg) TABLE=$VARIANTS table inference_neg fast_mlp inference_no_reaction 6291456 0 1 2 3 4 -- $LEVEL1 ;;
  # the inference negative settled at lead's level, still rising: its runs trained on to 16,777,216 steps
  inference_neg_16m) CONTINUE="--continue-from $OUT/inference_neg" TABLE=$VARIANTS table inference_neg_16m fast_mlp \
    inference_no_reaction 16777216 0 1 2 3 4 -- $LEVEL1 ;;
  # ... and with observation normalisation (one change): can the memoryless learner find blind's rule without the reaction?
  inference_neg_norm) TABLE=$VARIANTS table inference_neg_norm fast_mlp inference_no_reaction 6291456 0 1 2 -- $LEVEL1 \
    normalize_observation=true ;;
  # the inference positive control with observation normalisation (one change): the MLP passed at 0.52, the stack at 0.00
  inference_pos_norm) table inference_pos_norm fast_mlp inference@1 6291456 0 1 2 3 4 -- $LEVEL1 normalize_observation=true ;;
  # the positive controls with the 4-frame stack (memory besides; the record before had it pass the other probe)
  anticipation_pos_stack4) table anticipation_pos_stack4 fast_stack4 anticipation@1 6291456 0 1 2 3 4 -- $LEVEL1 ;;
  inference_pos_stack4) table inference_pos_stack4 fast_stack4 inference@1 6291456 0 1 2 3 4 -- $LEVEL1 ;;
  # every model of these tables against the probe's own oracle on the same 200 deals (score_level1.py), judged
  # against press_once's exact regret at anticipation@1 and lead's as a stricter bar, blind's at inference@1
  score_level1)
    SCORE="$PY $HERE/score_level1.py" A="$OUT/anticipation_pos/suites/anticipation@1-*/anticipation@1"
    I="$OUT/inference_pos/suites/inference@1-*/inference@1"
    for line in table press_once lead; do
      for name in anticipation_pos anticipation_pos_stack4 anticipation_neg anticipation_neg_after_open; do
        [ -d "$OUT/$name" ] || continue
        echo "## $name, $line"; $SCORE "$OUT"/$name/suites/anticipation*-*/anticipation* $A anticipation@1 $line press_once
      done
    done
    for name in inference_pos inference_pos_stack4 inference_pos_norm inference_neg inference_neg_16m inference_neg_norm; do
      [ -d "$OUT/$name" ] || continue
      echo "## $name, blind"; $SCORE "$OUT"/$name/suites/inference*-*/inference* $I inference@1 blind blind press_once
    done ;;
  # one set of settings for every family (README.md, "One set of settings for every family"): the positive controls
  # of memory, anticipation and inference at level 1 with the reading settings (observation normalisation, cards
  # one-hot), the learner and budget of each family's positive control, seeds 0-2
  memory_pos_uniform) table memory_pos_uniform fast_stack24 memory@1 4194304 0 1 2 -- $UNIFORM ;;
  # ... and seeds 3-4 of memory (its positive control had five seeds, seed 4 collapsing late)
  memory_pos_uniform_b) table memory_pos_uniform_b fast_stack24 memory@1 4194304 3 4 -- $UNIFORM ;;
  anticipation_pos_uniform) table anticipation_pos_uniform fast_mlp anticipation@1 6291456 0 1 2 -- $UNIFORM ;;
  inference_pos_uniform) table inference_pos_uniform fast_mlp inference@1 6291456 0 1 2 -- $UNIFORM ;;
  *) echo "usage: command.sh reading_pos|memory_pos|reading_neg|memory_neg|reading_neg_stack24|reading_neg_lstm|reading_pos_20m_a|reading_pos_20m_b|memory_neg_16m|reading_pos_relu|reading_pos_mlp|score_no_card|reading_pos_onehot|reading_neg_onehot|score_no_card_onehot|anticipation_pos|inference_pos|anticipation_neg|inference_neg|score_level1|inference_neg_16m|anticipation_pos_stack4|inference_pos_stack4|anticipation_neg_after_open|inference_neg_norm|inference_pos_norm|memory_pos_uniform|memory_pos_uniform_b|anticipation_pos_uniform|inference_pos_uniform" >&2; exit 2 ;;
esac
