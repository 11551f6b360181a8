"""Training with Stable-Baselines3 (the ``train`` extra), as library code; ``war-train``,
``war-selfplay`` and ``war-tune`` only parse arguments and call in here.

* ``config``: the JSON configuration files and their validation;
* ``envs``: the vectorised War-v0 envs of a run;
* ``callbacks``: checkpoints, held-out evaluation, round statistics for TensorBoard;
* ``comparison``: a model against ``prompt`` on held-out paired rounds (``war_env.evaluation``);
* ``run``: ``train(...)``, a run folder from start (or resume) to model card;
* ``selfplay``: one policy for both seats; ``tune``: Ray Tune over ``train``.

Importing this package imports neither torch nor stable-baselines3: they are imported when used.
"""
