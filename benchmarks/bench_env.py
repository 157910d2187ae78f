"""Environment speed (docs/rules.md#speed-is-measured-by-benchmarks).

Medians of repeated runs, and ratios against references run alongside.

* single env: steps/s of ``TrenteEtQuarante-v0`` against ``CartPole-v1`` and ``Blackjack-v1``,
  all through ``gymnasium.make``, stepped with random actions and reset at each episode end, measured
  in alternation (target: at least 1.5x CartPole-v1), in three forms and with
  ``coup_info=True`` (the coup's details in ``info``, off by default);
* vector env: table-steps/s at N = 1, 1,000 and 50,000 (target: 2 million at 50,000);
* PPO: training steps/s on our env against CartPole-v1 with the same settings (target: ratio >= 0.9).

Run: ``python benchmarks/bench_env.py [--repeats 5] [--no-ppo]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import gymnasium as gym

import trente_env  # noqa: F401  (registers the ids)


def single_env_rate(env_id: str, steps: int, **kwargs: object) -> float:
    """Steps/s of ``gymnasium.make(env_id)`` (default wrappers) over ``steps`` steps of random actions
    (1,000 sampled beforehand), reset at every episode end (the resets are timed too)."""
    env = gym.make(env_id, **kwargs)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(1000)]
    start = time.perf_counter()
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(actions[i % 1000])
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(num_envs: int, table_steps: int, env_id: str = "TrenteEtQuarante-v0", **kwargs: object) -> float:
    """Table-steps/s of ``gymnasium.make_vec(env_id, num_envs)`` (the registration's vector entry
    point) over about ``table_steps`` table-steps (at least 10 steps) of random actions (8 batches
    sampled beforehand); the vector env's own autoreset is timed with the steps."""
    venv = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    venv.reset(seed=0)
    venv.action_space.seed(0)
    actions = [venv.action_space.sample() for _ in range(8)]
    venv.step(actions[0])  # compile / warm up
    steps = max(10, table_steps // num_envs)
    start = time.perf_counter()
    for i in range(steps):
        venv.step(actions[i % 8])
    rate = steps * num_envs / (time.perf_counter() - start)
    venv.close()
    return rate


def ppo_rate(make_env: Callable[[], object], total: int) -> float:
    from stable_baselines3 import PPO

    model = PPO("MlpPolicy", make_env(), n_steps=512, batch_size=64, n_epochs=4, seed=0, device="cpu")
    model.learn(512)  # warm up
    start = time.perf_counter()
    model.learn(total)
    return total / (time.perf_counter() - start)


def report(name: str, rates: list[float], reference: list[float] | None = None, ref_name: str = "") -> None:
    line = f"{name:<48} median {statistics.median(rates):>14,.0f} /s"
    if reference:
        ratios = [a / b for a, b in zip(rates, reference, strict=True)]
        line += f"   x{statistics.median(ratios):.2f} {ref_name} (median of paired ratios)"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-ppo", action="store_true")
    args = parser.parse_args()

    forms = {
        "TrenteEtQuarante-v0 discrete/flat": {"action_form": "discrete", "observation": "flat"},
        "TrenteEtQuarante-v0 discrete/dict": {"action_form": "discrete"},
        "TrenteEtQuarante-v0 full/dict": {},
        "TrenteEtQuarante-v0 full/dict, coup_info": {"coup_info": True},
    }
    blackjack: list[float] = []
    cartpole: list[float] = []
    ours: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(args.repeats):
        blackjack.append(single_env_rate("Blackjack-v1", 30_000))
        cartpole.append(single_env_rate("CartPole-v1", 60_000))
        for name, kwargs in forms.items():
            ours[name].append(single_env_rate("TrenteEtQuarante-v0", 60_000, **kwargs))
    report("Blackjack-v1 (gymnasium.make)", blackjack)
    report("CartPole-v1 (gymnasium.make)", cartpole, blackjack, "Blackjack-v1")
    for name, rates in ours.items():
        report(name, rates, cartpole, "CartPole-v1")

    for n in (1, 1_000, 50_000):
        rates = [vector_rate(n, 2_000_000 if n > 1 else 100_000, action_form="discrete") for _ in range(args.repeats)]
        report(f"vector env N={n:,} (table-steps)", rates)

    if args.no_ppo:
        return
    from stable_baselines3.common.env_util import make_vec_env

    from trente_env.wrappers import sb3_vec_env

    cartpole, trente, trente_native = [], [], []
    for _ in range(max(1, args.repeats // 2)):
        cartpole.append(ppo_rate(lambda: make_vec_env("CartPole-v1", 4, seed=0), 4096))
        trente.append(
            ppo_rate(
                lambda: make_vec_env(
                    "TrenteEtQuarante-v0", 4, seed=0, env_kwargs={"action_form": "discrete", "observation": "flat"}
                ),
                4096,
            )
        )
        trente_native.append(ppo_rate(lambda: sb3_vec_env(4, seed=0, action_form="discrete", observation="flat"), 4096))
    report("PPO CartPole-v1 (DummyVecEnv x4)", cartpole)
    report("PPO TrenteEtQuarante-v0 (DummyVecEnv x4)", trente, cartpole, "CartPole-v1")
    report("PPO TrenteEtQuarante-v0 (sb3_vec_env x4)", trente_native, cartpole, "CartPole-v1")


if __name__ == "__main__":
    main()
