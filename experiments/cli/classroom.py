"""``trente-lab classroom``: a live table in the browser, every student predicting before each coup
(:mod:`experiments.classroom`). Needs the classroom extra: ``pip install "trente-lab[classroom]"``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import RulesOption, SeedOption, path_option
from experiments.console import out
from experiments.errors import LabError


def command(
    rules: RulesOption = "classic",
    seed: SeedOption = 0,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. The default 127.0.0.1 reaches this machine only; 0.0.0.0 opens the "
            "classroom to the network (students' phones on the same Wi-Fi).",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=1, max=65535, help="Port to listen on.")] = 8000,
    session: Annotated[
        Path,
        path_option(
            "--session",
            help="The session file: every join, prediction and coup, kept across a restart (resumed if it exists, "
            "with its own rules and seed). It holds the teacher's token: keep it private.",
        ),
    ] = Path("classroom-session.json"),
    new: Annotated[bool, typer.Option("--new", help="Refuse to resume: start a new session file.")] = False,
) -> None:
    """Start a classroom: a projector page for the teacher and a join page for students' phones."""
    try:
        import segno  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise LabError(f"the classroom needs the classroom extra ({exc.name} is missing): "
                       'pip install "trente-lab[classroom]"') from None  # fmt: skip
    from experiments.classroom import serve

    room, resumed = serve.open_classroom(session, rules, seed, new)
    projector, join = serve.addresses(host, port, room)
    if resumed:
        out.print(f"resumed {session}: {len(room.coups)} coups, {len(room.students)} students "
                  f"({room.preset} rules, seed {room.seed})")  # fmt: skip
    else:
        out.print(f"new session {session} ({room.preset} rules, seed {room.seed})")
    if host in serve.LOCAL_HOSTS:
        out.print(f"listening on {host} only: other machines cannot join; use --host 0.0.0.0 for the class's network")
    else:
        out.print(f"listening on {host}: anyone on this network who has the join code can join")
    out.print(f"projector (teacher, keep private): {projector}", soft_wrap=True, markup=False)
    out.print(f"join page (students):              {join}", soft_wrap=True, markup=False)
    out.print(f"join code: {room.join_code}")
    out.print(serve.qr_text(join), markup=False, highlight=False)
    out.print("Ctrl-C stops the server; the session file keeps everything.", style="dim")
    serve.serve(room, host, port, join)
    out.print(f"stopped; {session} keeps the session: run the same command to go on", style="dim")
