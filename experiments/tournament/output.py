"""A tournament's results on disk and on the terminal: ``results.json``, ``results.csv``, the
per-session table (``sessions.parquet`` with the ``parquet`` extra, else ``sessions.csv.gz``),
``trajectories.csv``, the plots, and the verdict table (``docs/tournament-files.md`` describes
every field)."""

from __future__ import annotations

import csv
import gzip
import importlib.util
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table

from experiments.console import out
from experiments.errors import TournamentError
from experiments.files import atomic_write, json_default
from experiments.stats import Z95
from experiments.tournament.checkpoints import BLOCK_ARRAYS
from experiments.tournament.drawing import Drawers
from strategies.runner import SESSION_FIELDS

#: The per-session table: Parquet when pyarrow is installed (the ``parquet`` extra), else CSV
#: compressed with gzip (``docs/tournament-files.md`` compares their sizes and write times).
PARQUET, CSV_GZ = "sessions.parquet", "sessions.csv.gz"
#: The type of each column of the per-session table (``ahead``, ``ruined``, ``walked``: 0/1 in CSV).
SESSION_TYPES = {k: BLOCK_ARRAYS[k] for k in SESSION_FIELDS}

SUMMARY_COLUMNS = (
    "spec", "sessions", "return_per_unit", "ci_low", "ci_high", "se", "se_sessions", "se_stakes", "edge",
    "expected_return", "verdict",
    "consistent_with_edge", "above_zero", "below_zero", "p_edge", "p_edge_holm", "p_above_zero", "p_above_zero_holm",
    "delta", "equivalent", "p_equivalent", "p_equivalent_holm", "sessions_to_decide",
    "ci_low_simultaneous", "ci_high_simultaneous", "total_staked", "net", "mean_final_bankroll",
    "median_final_bankroll", "p_ahead", "p_ruin", "p_walked", "mean_coups", "mean_staked", "mean_max_drawdown",
    "worst_drawdown", "longest_losing_run", "mean_longest_losing_run", "table_max_hits",
    "sessions_with_table_max_hit", "bankroll_hits",
)  # fmt: skip


#: What a run's document says about this one run (how long it took, where its folder is), kept out
#: of ``results.json`` so that the file is the same to the byte for the same tournament wherever and
#: however it was played; ``manifest.json`` records the time.
RUN_KEYS = ("seconds", "session_coups_per_second", "out")
#: What a run on Dask adds about itself (the workers' first use), kept out of ``results.json`` too.
DASK_KEYS = ("workers_warm_up",)


def write_outputs(
    out: Path,
    document: Mapping[str, Any],
    sessions: Mapping[str, Mapping[str, np.ndarray]],
    plots: bool = True,
    written: list[str] | None = None,
    doing: Callable[[str], None] | None = None,
    drawers: Drawers | None = None,
) -> list[str]:
    """Write results.json/csv, the per-session table (:func:`sessions_file`), trajectories.csv and
    the plots, each atomically; returns their names, and adds each to ``written`` as soon as it is
    whole. ``doing`` is told, before each file, what is being written (a status line).

    :param drawers: processes that draw the plots while this one writes the other files (else
        they are drawn here, after the files).
    """
    written = [] if written is None else written
    doing = doing or (lambda _: None)
    bands = trajectory_bands(sessions)
    if plots and drawers is not None:
        drawers.draw(out, document, sessions, bands)

    def write(name: str, fill: Callable[[io.BufferedWriter], None]) -> None:
        doing(f"writing {name}")
        atomic_write(out / name, fill)
        written.append(name)

    results = {k: v for k, v in document.items() if k not in RUN_KEYS + DASK_KEYS}
    write("results.json", _text(json.dumps(results, indent=2, default=json_default) + "\n"))
    write("results.csv", _text(_csv([["strategy", *SUMMARY_COLUMNS]] + _summary_rows(document))))
    name = sessions_file()
    write(name, lambda f: _write_sessions(f, sessions, name))
    write("trajectories.csv", _text(_trajectories_csv(bands)))
    if plots and drawers is not None:
        drawers.wait(written, doing)
        if drawers.failures:  # drawn here after all: the same function, the same bytes
            from experiments.tournament.plots import draw_one

            for name, error in drawers.failures.items():
                doing(f"drawing {name} here (its drawing process failed: {error})")
                draw_one(out, name, document, sessions, bands)
                written.append(name)
    elif plots:
        doing("drawing the plots (loading matplotlib)")
        from experiments.tournament.plots import draw_all  # matplotlib, only to draw

        draw_all(out, document, sessions, bands, written, doing)
    return written


def sessions_file() -> str:
    """The name of the per-session table this installation writes: :data:`PARQUET` when pyarrow is
    installed, else :data:`CSV_GZ`."""
    return PARQUET if importlib.util.find_spec("pyarrow") is not None else CSV_GZ


def _text(text: str) -> Callable[[io.BufferedWriter], None]:
    return lambda f: f.write(text.encode("utf-8"))


def trajectory_bands(sessions: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    """Per strategy, the quantiles (5, 25, 50, 75, 95%) and mean of the bankroll after each coup."""
    bands = {}
    for label, s in sessions.items():
        paths = s["trajectories"].astype(np.float64)
        if paths.shape[0] == 0:
            continue
        q = np.quantile(paths, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0)
        bands[label] = {
            "q05": q[0], "q25": q[1], "median": q[2], "q75": q[3], "q95": q[4], "mean": paths.mean(axis=0)
        }  # fmt: skip
    return bands


def _summary_rows(document: Mapping[str, Any]) -> list[list[Any]]:
    table = document["strategies"]
    return [[label] + [table[label][c] for c in SUMMARY_COLUMNS] for label in document["order"]]


def _csv(rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if v is None else (int(v) if isinstance(v, bool) else v) for v in row])
    return buffer.getvalue()


#: Sessions per chunk of the CSV table: the rows being written are held as Python values.
CSV_CHUNK = 65_536


def _write_sessions(f: io.BufferedWriter, sessions: Mapping[str, Mapping[str, np.ndarray]], name: str) -> None:
    if name == PARQUET:
        import pyarrow.parquet

        pyarrow.parquet.write_table(_arrow_table(sessions), f, compression="zstd")
    else:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=1, mtime=0) as packed:  # mtime 0: same bytes
            _write_sessions_csv(packed, sessions)


def _arrow_table(sessions: Mapping[str, Mapping[str, np.ndarray]]) -> Any:
    """Every session in one columnar table: ``strategy`` (dictionary-encoded), ``session`` and
    :data:`SESSION_FIELDS`, each strategy's sessions in order, in line-up order."""
    import pyarrow

    labels = list(sessions)
    sizes = [sessions[k]["net"].size for k in labels]
    codes = np.repeat(np.arange(len(labels), dtype=np.int32), sizes)
    columns = {
        "strategy": pyarrow.DictionaryArray.from_arrays(codes, pyarrow.array(labels, pyarrow.string())),
        "session": pyarrow.array(np.concatenate([np.arange(n, dtype=np.int64) for n in sizes])),
    }
    for name in SESSION_FIELDS:
        columns[name] = pyarrow.array(
            np.concatenate([np.asarray(sessions[k][name], dtype=SESSION_TYPES[name]) for k in labels])
        )
    return pyarrow.table(columns)


def _write_sessions_csv(f: Any, sessions: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Stream the per-session table into the binary file ``f``, :data:`CSV_CHUNK` sessions of one
    strategy at a time (money to 6 decimals, flags as 0/1)."""
    text = io.TextIOWrapper(f, encoding="utf-8", newline="", write_through=True)
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["strategy", "session", *SESSION_FIELDS])
    for label, s in sessions.items():
        n = s["net"].size
        for lo in range(0, n, CSV_CHUNK):
            hi = min(n, lo + CSV_CHUNK)
            columns = [[label] * (hi - lo), range(lo, hi)]
            for name in SESSION_FIELDS:
                values = s[name][lo:hi]
                if values.dtype == np.bool_:
                    values = values.astype(np.int8)
                elif values.dtype.kind == "f":
                    values = np.round(values, 6)
                columns.append(values.tolist())
            writer.writerows(zip(*columns))
    text.flush()
    text.detach()


def read_sessions(folder: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """The per-session table of the tournament in ``folder`` (Parquet or gzip-compressed CSV), per
    strategy label in line-up order: :data:`SESSION_FIELDS` as arrays of :data:`SESSION_TYPES`, in
    session order.

    :raises TournamentError: no table, or one that cannot be read (Parquet without pyarrow).
    """
    folder = Path(folder)
    if (folder / PARQUET).is_file():
        try:
            import pyarrow.parquet
        except ImportError:
            raise TournamentError(
                f"{str(folder / PARQUET)!r} needs pyarrow to be read: pip install 'trente-lab[parquet]'"
            ) from None
        table = pyarrow.parquet.read_table(folder / PARQUET)
        labels = table.column("strategy").to_numpy().astype(str)
        columns = {name: table.column(name).to_numpy() for name in SESSION_FIELDS}
    elif (folder / CSV_GZ).is_file():
        with gzip.open(folder / CSV_GZ, "rt", encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        header, rows = rows[0], rows[1:]
        if header != ["strategy", "session", *SESSION_FIELDS]:
            raise TournamentError(f"{str(folder / CSV_GZ)!r} has the columns {', '.join(header)}")
        labels = np.array([r[0] for r in rows], dtype=str)
        data = list(zip(*(r[2:] for r in rows))) if rows else [()] * len(SESSION_FIELDS)
        columns = {
            name: np.array(values, dtype=np.float64).astype(SESSION_TYPES[name])
            for name, values in zip(SESSION_FIELDS, data)
        }
    else:
        raise TournamentError(f"no per-session table ({PARQUET} or {CSV_GZ}) in {str(folder)!r}")
    order = list(dict.fromkeys(labels.tolist()))
    return {
        label: {name: np.asarray(columns[name][labels == label], dtype=SESSION_TYPES[name]) for name in SESSION_FIELDS}
        for label in order
    }


def _trajectories_csv(bands: Mapping[str, Mapping[str, np.ndarray]]) -> str:
    rows: list[list[Any]] = [["strategy", "coup", "q05", "q25", "median", "q75", "q95", "mean"]]
    for label, b in bands.items():
        for c in range(b["median"].size):
            rows.append([label, c] + [round(float(b[k][c]), 4) for k in ("q05", "q25", "median", "q75", "q95", "mean")])
    return _csv(rows)


#: The table's columns: (heading, justify, shown in the compact default). ``--wide`` shows them all.
TABLE_COLUMNS = (
    ("strategy", "left", True),
    ("return/unit\n±95% CI", "right", True),
    ("-edge", "right", False),
    ("verdict", "left", True),
    ("P\n(ahead)", "right", True),
    ("P\n(ruin)", "right", True),
    ("exact\nP(ahead)", "right", False),
    ("exact\nP(ruin)", "right", False),
    ("final\nmean", "right", False),
    ("final\nmedian", "right", False),
    ("mean\ncoups", "right", False),
    ("staked/\nsession", "right", False),
    ("max DD\n(mean)", "right", False),
    ("losing\nrun", "right", False),
    ("table-\nmax hits", "right", False),
)
#: The width of the table when stdout is not a terminal: 80 columns compact, 168 wide.
TABLE_WIDTH = {False: 80, True: 168}


def _share(p: float | None) -> str:
    return "-" if p is None else f"{p:.1%}"


def table_cells(row: Mapping[str, Any]) -> list[str]:
    """One system's cells, in the order of :data:`TABLE_COLUMNS`."""
    if row["return_per_unit"] is None:
        ret = "no stakes"
    elif row["se"] is None:
        ret = f"{row['return_per_unit']:+.2%}"
    else:
        ret = f"{row['return_per_unit']:+.2%} ±{Z95 * row['se']:.2%}"
    return [
        ret,
        f"{-row['edge']:+.2%}" if row["total_staked"] else "",
        row["verdict"],
        f"{row['p_ahead']:.1%}",
        f"{row['p_ruin']:.1%}",
        _share(row.get("exact_p_ahead")),
        _share(row.get("exact_p_ruin")),
        f"{row['mean_final_bankroll']:,.1f}",
        f"{row['median_final_bankroll']:,.0f}",
        f"{row['mean_coups']:.0f}",
        f"{row['mean_staked']:,.0f}",
        f"{row['mean_max_drawdown']:,.0f}",
        f"{row['longest_losing_run']}",
        f"{row['table_max_hits']:,}",
    ]


def played_rules(document: Mapping[str, Any]) -> str:
    """The name of the game a results document's run played (``rules_played``: the preset, with its
    overrides if any); the preset for a document written before it said so."""
    return document.get("rules_played") or document["rules"]


def verdict_table(document: Mapping[str, Any], wide: bool = False) -> Table:
    """The verdict table, sorted by P(session ahead): strategy, return per unit staked with its 95%
    interval, verdict, P(ahead) and P(ruin); ``wide`` adds the exact edge, the exact P(ahead) and
    P(ruin) where the document has them (:mod:`experiments.tournament.exact`), the final bankroll, the
    coups, the stakes, the drawdown, the losing run and the table-maximum hits."""
    table = document["strategies"]
    rig = document.get("positive_control")
    edge = (
        f"RIGGED table (positive control): always Noir {rig['always_noir']:+.2%} per unit staked, Noir only "
        f"right after a Noir win {rig['noir_after_noir']:+.2%} (exact)"
        if rig
        else f"Exact house edge of a Noir stake: {document['house_edge']:.3%}"
    )
    view = Table(
        title=(
            f"{document['sessions']:,} sessions x up to {document['coups']:,} coups, bankroll "
            f"{document['bankroll']:g}, unit {document['unit']}, {played_rules(document)} rules, "
            f"seed {document['seed']}. " + edge
        ),
        title_justify="left",
        caption=document["correction"]["note"] + (_exact_note(document) if wide else ""),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    shown = [i for i, (_, _, compact) in enumerate(TABLE_COLUMNS) if wide or compact]
    for i in shown:
        name, justify, _ = TABLE_COLUMNS[i]
        view.add_column(name, justify=justify, no_wrap=True)
    for label in document["order"]:
        r = table[label]
        cells = [label, *table_cells(r)]
        alarm = r["consistent_with_edge"] is False or r["above_zero"]
        view.add_row(*(cells[i] for i in shown), style="bold red" if alarm else None)
    return view


def _exact_note(document: Mapping[str, Any]) -> str:
    exact = document.get("exact_risk")
    if not exact:
        return ""
    text = f"\nExact P(ahead), P(ruin): one session by a Markov chain ({exact['model']})"
    if exact["refused"]:
        text += "; not computed for " + ", ".join(exact["refused"]) + " (simulated only)"
    return text + "."


def print_table(document: Mapping[str, Any], wide: bool = False, console: Console | None = None) -> None:
    """The verdict table (:func:`verdict_table`) and the conclusion under it, on ``console`` (default
    stdout; when stdout is not a terminal, :data:`TABLE_WIDTH` columns wide)."""
    if console is None:
        console = out if out.is_terminal else Console(width=TABLE_WIDTH[wide], highlight=False)
    console.print(verdict_table(document, wide))
    console.print(document["conclusion"])


__all__ = [
    "CSV_CHUNK",
    "CSV_GZ",
    "DASK_KEYS",
    "PARQUET",
    "SESSION_TYPES",
    "read_sessions",
    "sessions_file",
    "SUMMARY_COLUMNS",
    "TABLE_COLUMNS",
    "played_rules",
    "print_table",
    "table_cells",
    "trajectory_bands",
    "verdict_table",
    "write_outputs",
]
