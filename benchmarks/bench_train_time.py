"""The time of one witness run: ``trente-lab train``'s PPO on the fair level for 1,000,000 steps,
as ``trente-lab benchmark`` trains it (the shipped configuration, a learning-curve point every
50,000 steps), with the settings of today against those before (8 tables of 256 coups a rollout
instead of 64 of 32: the same 2,048 transitions an update, the same minibatches and epochs),
reached through the run's hyper-parameter overrides (:data:`BEFORE`).

The two are timed in alternation (the first of each pair alternating too), ``--repeats`` pairs; the
row gives the median wall time of each, the median of the paired ratios (now / before), and the same
for the process's CPU time, which a busy machine moves less than the wall time. A run trains in a
scratch folder; one short run first compiles the kernels and warms torch up. ``--quick`` trains a
tenth of the steps.

``--split`` prints where a run's time goes instead (:func:`split`): the CPU time of the one thread
that does the work (one torch thread; the tables and the evaluation's sessions on one thread too),
cut into :data:`PARTS`, for a run of a tenth of the steps with each setting. ``--floor`` sets a
minibatch of the update through SB3 beside the same work in plain torch (:func:`floor`): how much
of the update is SB3's own code, and so how far any rewrite of it that computes the same numbers
could go.

Run: ``python -m benchmarks.bench_train_time [--repeats 3] [--quick] [--split] [--floor]``, or as a row of
``python -m benchmarks --train``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator
from typing import Any

#: The settings before: what ``experiments/configs/rl.toml`` gave PPO until it played 64 tables.
BEFORE: dict[str, Any] = {"n_envs": 8, "n_steps": 256}
#: Steps of the timed run (``--quick``: a tenth).
TIMESTEPS = 1_000_000


def run_seconds(timesteps: int, hyper: dict[str, Any] | None = None, seed: int = 0) -> tuple[float, float]:
    """Wall and CPU seconds of one ``train_agent`` run of PPO on the fair level (``hyper`` overrides
    the shipped configuration), with a learning-curve point as often as the benchmark takes one."""
    from experiments.rl.benchmark import CURVE_EVERY
    from experiments.rl.rig import parse_venue
    from experiments.rl.train import train_agent

    with tempfile.TemporaryDirectory(prefix="trente-lab-bench-train-") as scratch:
        wall, cpu = time.perf_counter(), time.process_time()
        train_agent(
            "ppo", timesteps, venue=parse_venue("fair"), seed=seed, out_dir=scratch, eval_every=CURVE_EVERY, hyper=hyper
        )
        return time.perf_counter() - wall, time.process_time() - cpu


def measure(timesteps: int, repeats: int) -> dict[str, list[float]]:
    """Wall and CPU seconds of ``repeats`` runs with today's settings and with :data:`BEFORE`, in
    alternation: lists ``now_wall``, ``now_cpu``, ``before_wall``, ``before_cpu``."""
    run_seconds(4096)  # compiles the kernels, warms torch up
    run_seconds(4096, BEFORE)
    times: dict[str, list[float]] = {key: [] for key in ("now_wall", "now_cpu", "before_wall", "before_cpu")}
    for r in range(repeats):
        for which in ("now", "before")[:: 1 if r % 2 == 0 else -1]:
            wall, cpu = run_seconds(timesteps, BEFORE if which == "before" else None)
            times[f"{which}_wall"].append(wall)
            times[f"{which}_cpu"].append(cpu)
    return times


def paired_ratio(now: list[float], before: list[float]) -> float:
    """The median of the ratios of each pair (now / before)."""
    return statistics.median([a / b for a, b in zip(now, before, strict=True)])


def rows(repeats: int, quick: bool = False) -> list[str]:
    """Markdown rows: the run's wall time now and before, and the same in CPU time."""
    from experiments.rl.config import load_config

    timesteps = TIMESTEPS // 10 if quick else TIMESTEPS
    shipped = load_config("ppo")
    now_label = f"{shipped.train.n_envs} tables x {shipped.hyper['n_steps']} coups"
    t = measure(timesteps, repeats)
    what = f"PPO on fair, {timesteps:,} steps (train as benchmark runs it)"
    before = f"{BEFORE['n_envs']} tables x {BEFORE['n_steps']} coups a rollout"
    out = []
    for clock in ("wall", "cpu"):
        now, old = t[f"now_{clock}"], t[f"before_{clock}"]
        out.append(
            f"| {what}, {clock} time | {statistics.median(now):.1f} s ({now_label}) "
            f"| {before}: {statistics.median(old):.1f} s | {paired_ratio(now, old):.2f}x |"
        )
    return out


#: The parts of a run :func:`split` times, in the order printed (the rest is the run's remainder).
PARTS = ("minibatch updates", "forward passes (rollouts)", "env steps", "evaluations", "rest")


@contextlib.contextmanager
def _charged(owner: Any, name: str, spent: dict[str, float], part: str) -> Iterator[None]:
    """Within the block, every call of ``owner.name`` adds its CPU time (this thread's) to ``spent[part]``."""
    inner = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[part] += time.thread_time() - start

    setattr(owner, name, timed)
    try:
        yield
    finally:
        setattr(owner, name, inner)


def split(timesteps: int, hyper: dict[str, Any] | None = None) -> dict[str, float]:
    """CPU seconds of this thread in each of :data:`PARTS` and ``"total"`` for one run as
    :func:`run_seconds` trains it: PPO's updates (``PPO.train``), the policy's forward passes while
    collecting (``ActorCriticPolicy.forward``), the tables' steps (the SB3 adapter's ``step_wait``),
    the learning curve's evaluations (``evaluate_now``), and the rest (SB3's buffers and callbacks,
    building the model, saving it, the plot)."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.policies import ActorCriticPolicy

    import experiments.rl.train as train
    from trente_env.wrappers import TrenteVecEnv

    spent = dict.fromkeys(PARTS, 0.0)
    with contextlib.ExitStack() as stack:
        for owner, name, part in (
            (PPO, "train", PARTS[0]), (ActorCriticPolicy, "forward", PARTS[1]), (TrenteVecEnv, "step_wait", PARTS[2]),
            (train, "evaluate_now", PARTS[3]),
        ):  # fmt: skip
            stack.enter_context(_charged(owner, name, spent, part))
        start = time.thread_time()
        run_seconds(timesteps, hyper)
        total = time.thread_time() - start
    spent["rest"] = total - sum(spent.values())
    spent["total"] = total
    return spent


def split_rows(timesteps: int) -> list[str]:
    """Markdown rows of :func:`split` with today's settings and :data:`BEFORE` (after a short run of each)."""
    run_seconds(4096)
    run_seconds(4096, BEFORE)
    out = [f"| settings | {' | '.join(PARTS)} | total (s of CPU) |", "|---" * (len(PARTS) + 2) + "|"]
    for label, hyper in (("today's", None), (f"{BEFORE['n_envs']} tables x {BEFORE['n_steps']} coups", BEFORE)):
        s = split(timesteps, hyper)
        out.append(
            f"| {label} | "
            + " | ".join(f"{s[p]:.2f} ({s[p] / s['total']:.0%})" for p in PARTS)
            + f" | {s['total']:.2f} |"
        )
    return out


def floor(repeats: int) -> dict[str, float]:
    """CPU milliseconds of this thread a minibatch of PPO's update takes through SB3 (``PPO.train``
    with the shipped configuration, its buffer filled by a short run on the fair level) and in plain
    torch: the same network modules and minibatch size, the same clipped loss, Adam and gradient
    clipping, with none of SB3's own code between the operations. Medians of ``repeats`` of each,
    in alternation (``"sb3"``, ``"torch"``, and the median of the paired ratios ``"ratio"``)."""
    import torch
    import torch.nn.functional as F

    from experiments.rl.config import load_config, set_threads
    from experiments.rl.rig import parse_venue
    from experiments.rl.train import build_model, sb3_env, silent_logger

    set_threads(1)
    config = load_config("ppo")
    s, hyper = config.train, config.hyper
    venv = sb3_env(
        parse_venue("fair"), s.n_envs, 0, s.reward_scale, action_form=s.action_form, observation="flat",
        history=s.history, stake_levels=tuple(float(x) for x in s.stake_levels), observe_shoe=False,
    )  # fmt: skip
    model = build_model(config, venv, 0, None, "cpu")
    model.set_logger(silent_logger())
    rollout = s.n_envs * hyper["n_steps"]
    model.learn(3 * rollout)
    minibatches = hyper["n_epochs"] * -(-rollout // hyper["batch_size"])

    policy, batch = model.policy, hyper["batch_size"]
    params = list(policy.parameters())
    adam = torch.optim.Adam(params, lr=3e-4, eps=1e-5)
    generator = torch.Generator().manual_seed(0)
    x = torch.rand(batch, venv.observation_space.shape[0], generator=generator)
    actions = torch.randint(0, int(venv.action_space.n), (batch, 1), generator=generator)
    old, advantages, returns = torch.randn(3, batch, generator=generator)
    clip = hyper["clip_range"]

    def plain() -> None:
        latent_pi, latent_vf = policy.mlp_extractor(x)
        logits, values = policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()
        log_p = logits - logits.logsumexp(-1, keepdim=True)
        ratio = torch.exp(log_p.gather(1, actions).squeeze(1) - old)
        entropy = -(log_p.exp() * log_p).sum(-1)
        clipped = torch.min(advantages * ratio, advantages * ratio.clamp(1 - clip, 1 + clip))
        loss = -clipped.mean() + 0.5 * F.mse_loss(returns, values) - hyper["ent_coef"] * entropy.mean()
        adam.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 0.5)
        adam.step()

    def ms(work: Any, per: int) -> float:
        start = time.thread_time()
        work()
        return (time.thread_time() - start) / per * 1e3

    times: dict[str, list[float]] = {"sb3": [], "torch": []}
    for r in range(repeats + 1):  # the first pair warms both up
        sb3, plain_ms = ms(model.train, minibatches), ms(lambda: [plain() for _ in range(minibatches)], minibatches)
        if r:
            times["sb3"].append(sb3)
            times["torch"].append(plain_ms)
    return {
        "sb3": statistics.median(times["sb3"]),
        "torch": statistics.median(times["torch"]),
        "ratio": paired_ratio(times["torch"], times["sb3"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="alternating pairs of runs (median)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the steps")
    parser.add_argument("--split", action="store_true", help="where a run's time goes (a tenth of the steps)")
    parser.add_argument("--floor", action="store_true", help="a minibatch of the update: SB3 against plain torch")
    args = parser.parse_args()
    if args.floor:
        f = floor(max(args.repeats, 5))
        print("| a minibatch of PPO's update (CPU of one thread) | through SB3 | plain torch, the same work | ratio |")
        print("|---|---|---|---|")
        print(f"| shipped configuration, fair level | {f['sb3']:.2f} ms | {f['torch']:.2f} ms | {f['ratio']:.2f}x |")
        return
    if args.split:
        for line in split_rows(TIMESTEPS // 10):
            print(line, flush=True)
        return
    print("| run | now (median) | before, same run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for line in rows(args.repeats, args.quick):
        print(line, flush=True)


if __name__ == "__main__":
    main()
