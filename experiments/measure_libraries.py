"""Part 1 of issue 28: what maintained libraries give on War's batched env (one torch thread)."""

import time

import torch

torch.set_num_threads(1)
import war_env  # noqa: E402, F401
from war_env.envs.sb3_vec import WarSB3VecEnv  # noqa: E402


def sb3_ppo(n_envs, n_steps, batch, steps=20000):
    from stable_baselines3 import PPO

    env = WarSB3VecEnv(n_envs, env_id="WarAnticipation-v1")
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=batch,
        n_epochs=4,
        device="cpu",
        seed=0,
        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [64, 64]}},
    )
    model.learn(n_steps * n_envs)
    t = time.perf_counter()
    model.learn(steps)
    dt = time.perf_counter() - t
    print(f"SB3 PPO n_envs={n_envs} n_steps={n_steps} batch={batch}: {steps / dt:,.0f} steps/s", flush=True)


def torchrl_pieces(T=64, N=1024):
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.modules import ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value.functional import generalized_advantage_estimate

    r = torch.randn(N, T, 1)
    v = torch.randn(N, T, 1)
    nv = torch.randn(N, T, 1)
    d = torch.rand(N, T, 1) < 0.002

    def mine():
        adv = torch.zeros(T, N)
        last = torch.zeros(N)
        rr, vv, nvv, dd = r[..., 0].T, v[..., 0].T, nv[..., 0].T, d[..., 0].T.float()
        for t in reversed(range(T)):
            delta = rr[t] + 0.99 * nvv[t] * (1 - dd[t]) - vv[t]
            last = delta + 0.99 * 0.95 * (1 - dd[t]) * last
            adv[t] = last
        return adv

    for name, f in (
        ("torchrl generalized_advantage_estimate", lambda: generalized_advantage_estimate(0.99, 0.95, v, nv, r, d, d)),
        ("a torch loop over 64 steps", mine),
    ):
        f()
        t = time.perf_counter()
        for _ in range(20):
            f()
        print(f"GAE on {N}x{T}: {name}: {(time.perf_counter() - t) / 20 * 1e3:.2f} ms", flush=True)
    W = 24

    def mlp(o):
        return nn.Sequential(nn.Linear(W, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, o))

    actor_net, critic_net = mlp(2), mlp(1)
    actor = ProbabilisticActor(
        TensorDictModule(actor_net, ["observation"], ["logits"]),
        in_keys=["logits"],
        distribution_class=torch.distributions.Categorical,
        return_log_prob=True,
    )
    critic = ValueOperator(critic_net, in_keys=["observation"])
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.0, normalize_advantage=False)
    opt = torch.optim.Adam(loss.parameters(), lr=1e-3)
    B = 8192
    td = TensorDict(
        {
            "observation": torch.rand(B, W),
            "action": torch.randint(0, 2, (B,)),
            "action_log_prob": torch.full((B,), -0.69),
            "advantage": torch.randn(B, 1),
            "value_target": torch.randn(B, 1),
        },
        batch_size=[B],
    )

    def torchrl_step():
        out = loss(td)
        total = out["loss_objective"] + out["loss_critic"] + out.get("loss_entropy", 0)
        opt.zero_grad()
        total.backward()
        opt.step()

    params = list(actor_net.parameters()) + list(critic_net.parameters())
    opt2 = torch.optim.Adam(params, lr=1e-3)
    obs, act, oldlp, adv, tgt = (
        td["observation"],
        td["action"],
        td["action_log_prob"],
        td["advantage"][:, 0],
        td["value_target"][:, 0],
    )

    def hand_step():
        logp = torch.log_softmax(actor_net(obs), -1).gather(1, act[:, None])[:, 0]
        ratio = (logp - oldlp).exp()
        pl = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        vl = 0.5 * (critic_net(obs)[:, 0] - tgt).pow(2).mean()
        opt2.zero_grad()
        (pl + 0.5 * vl).backward()
        opt2.step()

    for name, f in (("TorchRL ClipPPOLoss", torchrl_step), ("hand-written clipped loss", hand_step)):
        for _ in range(3):
            f()
        t = time.perf_counter()
        for _ in range(30):
            f()
        print(
            f"one PPO minibatch update of {B} samples (64-64 MLPs): {name}: "
            f"{(time.perf_counter() - t) / 30 * 1e3:.2f} ms",
            flush=True,
        )


if __name__ == "__main__":
    torchrl_pieces()
    for n_envs, n_steps, batch in ((8, 256, 256), (64, 64, 512), (1024, 64, 8192)):
        sb3_ppo(n_envs, n_steps, batch, steps=max(20000, n_envs * n_steps * 2))
