"""``trente-lab train``: train a stable-baselines3 agent (:mod:`experiments.rl.train`)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import path_option
from experiments.cli.trust import TrustModelOption
from experiments.console import out, print_json, say
from experiments.limits import MAX_COUPS, MAX_SB3_SEED, MAX_TABLES
from experiments.rl.algorithms import TRAINABLE

#: ``--algo``'s choices: :data:`~experiments.rl.algorithms.TRAINABLE`.
Algo = Enum("Algo", [(name.replace("-", "_"), name) for name in TRAINABLE], type=str)


class Form(str, Enum):
    """``--action-form``'s choices: the env's action forms (``trente_env.layout.ACTION_FORMS``, which
    this help must not import: a test checks they agree), the default first."""

    discrete = "discrete"
    full = "full"
    factored = "factored"


class Device(str, Enum):
    """``--device``'s choices (``experiments.rl.train.DEVICES``)."""

    cpu = "cpu"
    cuda = "cuda"
    auto = "auto"


def parse_settings(settings: list[str]) -> dict[str, object]:
    """``--set KEY=VALUE`` options as hyper-parameters: each value read as TOML, else as text."""
    import tomllib

    from experiments.errors import RLError

    values: dict[str, object] = {}
    for setting in settings:
        key, equals, text = setting.partition("=")
        key = key.strip()
        if not equals or not key.isidentifier():
            raise RLError(f"--set takes KEY=VALUE with KEY a hyper-parameter's name, got {setting!r}")
        try:
            values[key] = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            values[key] = text.strip()
    return values


def command(
    algo: Annotated[Algo, typer.Option("--algo", "-a", help="Algorithm.")] = Algo.ppo,
    timesteps: Annotated[
        int, typer.Option("--timesteps", "-t", min=1, max=MAX_COUPS, help="Coups to train on, all tables.")
    ] = 200_000,
    rules: Annotated[
        str, typer.Option("--rules", "-r", help="Table: a preset, or rigged-<preset> (positive control).")
    ] = "classic",
    action_form: Annotated[
        Form | None,
        typer.Option("--action-form", help="How the agent bets (default: the config's action_form, train table)."),
    ] = None,
    n_envs: Annotated[
        int | None, typer.Option("--n-envs", min=1, max=MAX_TABLES, help="Tables side by side (default: config).")
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", "-s", min=0, max=MAX_SB3_SEED, help="Seed of the run (stable-baselines3 takes 0 to 2**32 - 1)."
        ),
    ] = 0,
    out_dir: Annotated[Path | None, path_option("--out", "-o", help="Output directory.")] = None,
    tensorboard: Annotated[
        bool, typer.Option("--tensorboard", help="Also log to TensorBoard (OUT/tensorboard).")
    ] = False,
    rigged: Annotated[
        bool,
        typer.Option(
            "--rigged", help="POSITIVE CONTROL: play rigged-<preset> (Noir paid 3:2 right after a Noir win, else 1:2)."
        ),
    ] = False,
    config: Annotated[
        Path | None, path_option("--config", help="Hyper-parameter TOML (default: configs/rl.toml).")
    ] = None,
    eval_every: Annotated[
        int | None, typer.Option("--eval-every", min=1, max=MAX_COUPS, help="Timesteps between evaluations.")
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help='A hyper-parameter of the algorithm, KEY=VALUE (a TOML value: 0.001, 64, true, "name"); '
            "repeat for several. Replaces the config file's.",
            metavar="KEY=VALUE",
        ),
    ] = None,
    start_from: Annotated[
        Path | None,
        path_option("--from", help="Go on training this model (saved by train: same --algo and --action-form)."),
    ] = None,
    device: Annotated[Device, typer.Option("--device", help="Torch device.")] = Device.cpu,
    observe_shoe: Annotated[
        bool,
        typer.Option(
            "--observe-shoe", help="The agent sees the unseen cards by value and colour, and the cards left to deal."
        ),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace a model already in --out.")] = False,
    trust_model: TrustModelOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Train an RL agent (stable-baselines3) on the vector env; save model, learning curve (CSV, PNG).

    Algorithms: {algorithms}. The model file it writes is SB3's, which holds pickled code, with a
    model.json beside it from which the lab loads it without unpickling; SB3's own loading runs code,
    so share and load only files you trust. Ctrl-C saves the model of the steps done (partial).
    """
    from experiments.rl import train
    from experiments.rl.rig import parse_venue

    try:
        summary = train.train_agent(
            algo.value, timesteps, parse_venue(rules, rigged), action_form and action_form.value, n_envs, seed, out_dir,
            tensorboard, config, progress=not as_json, eval_every=eval_every, hyper=parse_settings(settings or []),
            force=force, start_from=start_from, device=device.value, observe_shoe=observe_shoe, warn=say,
        )  # fmt: skip
    except train.TrainingInterrupted as exc:
        say(
            f"interrupted: the model of the {exc.timesteps:,} timesteps done is saved in {exc.model_file} "
            f"(model.json says partial); go on with `trente-lab train --from {exc.model_file}` and another --out"
        )
        raise typer.Exit(130) from None
    if as_json:
        print_json(summary)
        return
    if summary["positive_control"]:
        out.print(f"[bold magenta]{summary['positive_control']}[/]")
    f = summary["final_eval"]
    out.print(
        f"Trained {summary['algo']} on {summary['table']}: {summary['timesteps']:,} timesteps in "
        f"{summary['seconds']:.0f} s ({summary['steps_per_second']:,.0f} steps/s, evaluation excluded)."
    )
    ratio, low, high = (train.format_return(f[k]) for k in ("return_per_unit", "ci_low", "ci_high"))
    if f["ci_low"] == f["ci_low"]:
        per_unit = f"return per unit staked {ratio} (95% CI {low} to {high})"
    elif f["stakes"]:
        per_unit = f"return per unit staked: too few stakes to estimate ({f['stakes']:,} placed)"
    else:
        per_unit = "nothing staked"
    share = f["share_of_optimum"]
    of_optimum = f", {share:.1%} of the optimum per coup" if share == share else ""
    out.print(
        f"Last evaluation: {per_unit}, reward per coup {f['reward_per_coup']:+.3f}{of_optimum}, "
        f"sat out {f['sat_out']:.1%} of coups."
    )
    for name, path in summary["files"].items():
        out.print(f"  {name}: {path}", style="dim")
    out.print(f"Next: trente-lab evaluate {summary['files']['model']}", style="dim")


command.__doc__ = command.__doc__.format(algorithms=", ".join(TRAINABLE))
