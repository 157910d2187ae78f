"""Train a PPO agent on the classic table, then score it the way every policy is scored.

A few thousand coups of training (far too few to learn anything, but enough to see every step)
write ``model.zip``, ``model.json`` and the learning curve; then the agent and a flat bettor are
evaluated on the same sessions: return per unit staked with its 95% interval, beside the exact
expectation of the stakes placed. No agent can beat the refait: the best it can learn is not to
bet. Needs the ``rl`` extra (``pip install -e ".[rl]"``). Loading a saved model runs code (pickle):
load only files you trust.

    python examples/train_agent.py                              # 4,096 steps, 100 sessions
    python examples/train_agent.py --timesteps 2048 --episodes 20 --out /tmp/agent
"""

import argparse
import tempfile
from pathlib import Path

from experiments.rl.evaluate import evaluate_model
from experiments.rl.train import train_agent
from trente_env.plan import EvalPlan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=4096)
    parser.add_argument("--episodes", type=int, default=100, help="sessions of the evaluation")
    parser.add_argument("--out", help="output folder (default: a new temporary folder)")
    args = parser.parse_args()

    out = Path(args.out or tempfile.mkdtemp(prefix="agent-"))
    summary = train_agent("ppo", timesteps=args.timesteps, out_dir=out, force=True, seed=0)
    print(f"trained {summary['timesteps']:,} steps at {summary['steps_per_second']:,.0f} steps/s")
    for name, path in summary["files"].items():
        print(f"  {name}: {path}")

    for policy in (summary["files"]["model"], "flat"):
        report = evaluate_model(policy, EvalPlan(sessions=args.episodes, coups=200))
        r = report["return_per_unit_staked"]
        print(
            f"{policy}: sat out {report['behaviour']['sat_out']:.1%} of coups; return per unit staked "
            f"{r['ratio']:+.3%} (95% CI {r['ci_low']:+.3%} to {r['ci_high']:+.3%}), "
            f"expected {report['expected_return_per_unit']:+.3%}"
        )


if __name__ == "__main__":
    main()
