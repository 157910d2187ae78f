"""``trente-lab classroom``: a live table in the browser, every student predicting before each coup
(:mod:`experiments.classroom`). Needs the classroom extra: ``pip install "trente-lab[classroom]"``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import path_option
from experiments.console import out
from experiments.errors import LabError
from experiments.limits import MAX_SEED

#: The most bytes a TLS key or certificate file may hold (they are a few kilobytes).
TLS_BYTES = 1_000_000


def command(
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            "-r",
            help="Rules preset of a new session (see `trente-lab presets`; default: classic). A resumed session "
            "keeps its own table: --rules naming another is refused.",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            "-s",
            min=0,
            max=MAX_SEED,
            help="Seed of the shoe, to replay a lesson on purpose. Default: a fresh one from the operating system, "
            "shown only in the exports after the lesson (the class cannot know the cards in advance).",
        ),
    ] = None,  # fmt: skip
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
            help="The session file: every join, prediction and coup, kept across a restart. It holds the teacher's "
            "token: keep it private.",
        ),
    ] = Path("classroom-session.json"),
    resume: Annotated[bool, typer.Option("--resume", help="Continue the session in --session.")] = False,
    new: Annotated[bool, typer.Option("--new", help="Refuse to resume: start a new session file.")] = False,
    ssl_keyfile: Annotated[
        Path | None, path_option("--ssl-keyfile", help="Serve over HTTPS with this private key (with --ssl-certfile).")
    ] = None,
    ssl_certfile: Annotated[
        Path | None, path_option("--ssl-certfile", help="Serve over HTTPS with this certificate (with --ssl-keyfile).")
    ] = None,
    joins_per_address: Annotated[
        int,
        typer.Option(
            "--joins-per-address",
            min=1,
            max=10_000,
            help="New names one address may join with a minute (raise it if the phones share one address).",
        ),
    ] = 10,  # fmt: skip
    csv_sep: Annotated[
        str, typer.Option("--csv-sep", help="The CSV export's separator: , or ; (a French spreadsheet reads ;).")
    ] = ",",
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
    from experiments.rules import load_rules

    if csv_sep not in (",", ";"):
        raise LabError("--csv-sep: , or ;")
    if (ssl_keyfile is None) != (ssl_certfile is None):
        raise LabError("--ssl-keyfile and --ssl-certfile go together")
    from strategies.inputs import open_input

    for option, tls in (("--ssl-keyfile", ssl_keyfile), ("--ssl-certfile", ssl_certfile)):
        if tls is not None:  # a regular file (not a FIFO the server would wait on, a device, a folder)
            open_input(tls, option, TLS_BYTES, LabError).close()
    if ssl_certfile is not None and ssl_keyfile is not None:
        serve.check_tls(ssl_certfile, ssl_keyfile)
    if resume and new:
        raise LabError("--resume and --new: choose one")
    serve.check_listen(host, port)
    summary = serve.describe_session(session) if session.is_file() and not resume and not new else None
    if summary is not None:  # last week's class in this folder: never resumed without saying so
        ask = sys.stdin.isatty() and sys.stdout.isatty()
        if not (ask and typer.confirm(f"{session} holds an earlier class ({summary}): resume it?", default=False)):
            raise LabError(f"--session {session}: holds an earlier class ({summary}); --resume to continue it, "
                           "or --session NEW.json for a new class")  # fmt: skip
    if rules is None and not session.exists():
        rules = "classic"  # a new session's default table; a resumed one keeps its own
    table = None if rules is None else load_rules(rules)
    room, resumed = serve.open_classroom(session, table, seed, new, rules_name=rules or "")
    scheme = "https" if ssl_certfile else "http"
    base, join = serve.addresses(host, port, room, scheme)
    if resumed:
        out.print(f"resumed {session}: {len(room.coups)} coups, {room.present} students ({room.rules_name} rules)")
    else:
        out.print(
            f"new session {session} ({room.rules_name} rules, "
            + (f"seed {room.seed})" if seed is not None else "a fresh seed, shown in the exports after the lesson)")
        )
    if host in serve.LOCAL_HOSTS:
        out.print(f"listening on {host} only: other machines cannot join; use --host 0.0.0.0 for the class's network")
    else:
        out.print(f"listening on {host}: anyone on this network who has the join code can join")
        if scheme == "http":
            out.print("traffic is NOT encrypted: anyone on this network can read it, the teacher's actions included. "
                      "Serve over HTTPS (--ssl-certfile/--ssl-keyfile, see docs/classroom.md) or on a hotspot of "
                      "your own.", style="bold", soft_wrap=True)  # fmt: skip
    options = {"ssl_keyfile": str(ssl_keyfile), "ssl_certfile": str(ssl_certfile)} if ssl_certfile else {}

    def projector_line(code: str, label: str) -> None:
        out.print(f"{label}{base}/projector#once={code}", soft_wrap=True, markup=False)

    app = serve.build_app(room, host, join, joins_per_address, csv_sep)
    server = app.server
    projector_line(server.new_once(), "projector (teacher, works once): ")
    server.on_once_used = lambda code: projector_line(code, "projector opened; for another screen (works once): ")
    out.print(f"join page (students):              {join}", soft_wrap=True, markup=False)
    out.print(f"join code: {room.join_code}")
    out.print(serve.qr_text(join), markup=False, highlight=False)
    out.print("Ctrl-C stops the server; the session file keeps everything.", style="dim")
    serve.serve(app, host, port, **options)
    out.print(f"stopped; {session} keeps the session: run the same command with --resume to go on", style="dim")
