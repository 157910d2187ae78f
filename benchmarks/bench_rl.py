"""RL training speed: steps per second of each algorithm on our env against CartPole-v1
(docs/rules.md#speed-is-measured-by-benchmarks).

Every algorithm trains with the hyper-parameters of ``experiments/configs/rl.toml`` and one torch
thread, on ``n_envs`` tables of the native vector environment (``experiments.rl.rig.sb3_env``, the
env ``trente-lab train`` uses; by default the algorithm's own number of tables, as ``train`` plays);
the reference is the same algorithm with the same hyper-parameters and network on ``CartPole-v1``
in SB3's ``DummyVecEnv`` of the same width, measured in the same run (MaskablePPO's reference is
PPO: CartPole has no action masks). The env must not be the bottleneck: a ratio near 1 means the
time goes to the learner, as on CartPole. Evaluation during training is not included. Medians of
``--repeats`` runs, printed as JSON.

Run: ``python benchmarks/bench_rl.py [--timesteps 8192] [--repeats 3] [--algos ppo,a2c,dqn,maskable-ppo]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from experiments.rl.algorithms import TRAINABLE


def rate(algo: str, env: str, timesteps: int, n_envs: int | None, seed: int) -> float:
    """Training steps per second of ``algo`` on ``env`` (``"trente"`` or ``"cartpole"``), on ``n_envs``
    envs (None: the algorithm's own number of tables in the config)."""
    from stable_baselines3.common.env_util import make_vec_env

    from experiments.rl.config import algo_class, load_config
    from experiments.rl.rig import parse_venue, sb3_env
    from strategies.features import LogScaledFlat

    config = load_config(algo)
    n_envs = n_envs or config.train.n_envs
    hyper = dict(config.hyper)
    policy_kwargs: dict[str, Any] = {"net_arch": list(config.train.net_arch)}
    if env == "trente":
        venv = sb3_env(
            parse_venue("classic"), n_envs, seed, config.train.reward_scale, action_form="discrete",
            observation="flat", stake_levels=config.train.stake_levels,
        )  # fmt: skip
        policy_kwargs["features_extractor_class"] = LogScaledFlat
        cls = algo_class(algo)
    else:
        venv = make_vec_env("CartPole-v1", n_envs, seed=seed)
        cls = algo_class("ppo" if algo == "maskable-ppo" else algo)
    if algo == "dqn":
        hyper["learning_starts"] = min(hyper.get("learning_starts", 0), timesteps // 4)
    model = cls("MlpPolicy", venv, seed=seed, device="cpu", policy_kwargs=policy_kwargs, **hyper)
    model.learn(min(timesteps, 2048))  # warm up: numba, torch, first rollout
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description="RL training steps per second, our env vs CartPole-v1")
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-envs", type=int, default=None, help="envs (default: each algorithm's own)")
    parser.add_argument("--algos", default=",".join(TRAINABLE))
    args = parser.parse_args()

    from experiments.rl.config import set_threads

    set_threads(1)
    results: dict[str, Any] = {
        "timesteps": args.timesteps,
        "repeats": args.repeats,
        "n_envs": args.n_envs,
        "torch_threads": 1,
        "algos": {},
    }
    for algo in args.algos.split(","):
        ours, ref = [], []
        for r in range(args.repeats):  # interleaved, so both see the same machine load
            ours.append(rate(algo, "trente", args.timesteps, args.n_envs, r))
            ref.append(rate(algo, "cartpole", args.timesteps, args.n_envs, r))
        mo, mr = statistics.median(ours), statistics.median(ref)
        results["algos"][algo] = {
            "trente_steps_per_second": mo,
            "cartpole_steps_per_second": mr,
            "ratio": mo / mr,
            "reference": "PPO on CartPole-v1" if algo == "maskable-ppo" else f"{algo} on CartPole-v1",
            "runs": {"trente": ours, "cartpole": ref},
        }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
