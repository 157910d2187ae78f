"""One self-contained HTML page a class can open, offline (``trente-lab report [DIR]``).

The page holds, in this order:

* the **tournament** found in ``DIR`` (the folder ``trente-lab tournament --out DIR`` writes): the
  conclusion, the table of systems from ``results.json`` (read defensively: missing fields show as
  "–", a document of another shape is reported on the page, and ``results.csv`` is shown instead
  when there is no usable JSON), and every PNG plot in the folder;
* a **class's own lesson** when ``DIR/classroom.json`` is there (the export of ``trente-lab
  classroom``): the class's "after k in a row" table and its streak trap;
* the **gambler's fallacy** table and plot: from ``DIR/fallacy.json`` (written by
  ``trente-lab fallacy --out DIR``) when there is one, otherwise from a small run made on the spot,
  so the page is never empty;
* the **rules** of the game and of the table (with the exact house edges), and a **glossary** in
  English and French.

Every file of ``DIR`` is read by the one reader (:mod:`strategies.inputs`): one that is not a regular file,
is too large, or is not JSON where JSON is read (empty, malformed, too deep) is bad input like a malformed
config: a :class:`~experiments.errors.LabError` in one line, before the page is written.

Self-contained: plots are embedded as ``data:image/png;base64`` URIs, the style sheet is inline,
and a Content-Security-Policy forbids every network request, so the file works from a USB stick or
an e-mail attachment. A tiny inline script checks that every image decoded and records the result
in attributes of ``<body>`` (nothing shown), which the browser test reads. The page's words and style sheet
are in :mod:`experiments.teaching.page`.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import datetime as dt
import html
import io
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import version
from experiments.console import say
from experiments.errors import LabError
from experiments.files import atomic_write_text, check_output_file
from experiments.rules import load_rules
from experiments.streaks import pooled_table, streak_trap
from experiments.teaching.fallacy import fallacy_report, plot_streaks, plot_systems, system_label
from experiments.teaching.page import CHECK_SCRIPT, CSP, STYLE, glossary, rules_text
from strategies.inputs import MANIFEST_BYTES, RESULTS_BYTES, SESSION_BYTES, read_input, read_input_text, read_json
from trente_env.odds import first_coup, house_edges
from trente_env.rules import RuleSet

#: Plots the tournament writes, in the order the page shows them (others follow, sorted by name).
KNOWN_PLOTS = {
    "final_bankroll.png": "Final bankroll of each session, per system.",
    "trajectories.png": "The bankroll coup after coup: median, 50% and 90% bands.",
    "ahead_vs_return.png": "Each system's return per unit staked with its 95% interval, sorted, beside the "
    "exact −edge, and on the same row the chance a session ends ahead and of ruin: systems trade frequent "
    "small wins for rare large losses, and all sit at −edge.",
    "fallacy.png": "Frequencies after k wins in a row, with 95% intervals: a flat line.",
    "systems.png": "Following the streak, betting against it, or flat: the same return per unit staked.",
}


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any, fmt: str) -> str:
    """A number formatted with ``fmt``, or "–" for anything missing or not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return "–"


def _img(data: bytes, alt: str, caption: str) -> str:
    uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return f'<figure><img src="{uri}" alt="{_e(alt)}"><figcaption>{_e(caption)}</figcaption></figure>'


# -- the tournament ------------------------------------------------------------------------------


def read_results(folder: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``folder/results.json`` as a dict, or (None, a one-line reason it could not be used); a file the reader
    refuses (:mod:`strategies.inputs`) is a :class:`LabError`."""
    path = folder / "results.json"
    if not path.exists():
        return None, None
    document = read_json(path, "results", RESULTS_BYTES, LabError)
    if not isinstance(document, dict):
        return None, "results.json does not hold an object"
    return document, None


def _strategy_rows(document: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    table = document.get("strategies")
    if isinstance(table, list):  # tolerate a list of rows
        table = {str(r.get("spec", i)) if isinstance(r, dict) else str(i): r for i, r in enumerate(table)}
    if not isinstance(table, dict):
        return []
    order = document.get("order")
    labels = [label for label in order if label in table] if isinstance(order, list) else []
    labels += [label for label in table if label not in labels]
    return [(str(label), table[label]) for label in labels if isinstance(table[label], dict)]


def tournament_section(folder: Path) -> str:
    """The tournament's conclusion, table and run details from ``folder``; "" if it holds none."""
    document, problem = read_results(folder)
    parts = []
    if problem:
        parts.append(f'<p class="box warn">{_e(problem)}.</p>')
    if document:
        rows = _strategy_rows(document)
        edge = document.get("house_edge")
        head = [
            f"{_num(document.get('sessions'), ',')} sessions of at most {_num(document.get('coups'), ',')} coups",
            f"bankroll {_num(document.get('bankroll'), 'g')}",
            f"rules {_e(document.get('rules_played') or document.get('rules', '–'))}",
            f"seed {_e(document.get('seed', '–'))}",
        ]
        parts.append(f'<p class="meta">{" · ".join(head)}. {_e(document.get("description", ""))}</p>')
        if isinstance(document.get("conclusion"), str):
            parts.append(f'<p class="box">{_e(document["conclusion"])}</p>')
        if rows:
            parts.append(_tournament_table(rows, edge))
        correction = document.get("correction")
        if isinstance(correction, dict):
            parts.append(f'<p class="note">{_e(correction_sentence(correction))}</p>')
    elif (folder / "results.csv").exists():
        parts.append(_csv_table(folder / "results.csv"))
    parts.append(folder_files(folder))
    return "\n".join(p for p in parts if p)


def correction_sentence(correction: Mapping[str, Any]) -> str:
    """How the verdicts account for multiple comparisons, as a sentence: the tournament's own note when
    it wrote one, else one made from the method, the number of systems and the error rate."""
    if isinstance(correction.get("note"), str) and correction["note"].strip():
        return "Multiple comparisons: " + correction["note"].strip()
    method = {"holm": "Holm's step-down correction", "bonferroni": "Bonferroni's correction"}.get(
        str(correction.get("method", "")).lower(), f"the {correction.get('method', 'stated')} correction"
    )
    m = correction.get("family_size")
    alpha = correction.get("family_wise_alpha", correction.get("level"))
    over = f" over the {m} systems that staked" if isinstance(m, int) else ""
    rate = (
        f": the chance that any honest system is flagged is at most {alpha:.0%}"
        if isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
        else ""
    )
    return f"Multiple comparisons: the verdicts use {method}{over}{rate}."


def stakes_nothing(row: Mapping[str, Any]) -> bool:
    """A system that placed no stake (``never``): it has no return per unit staked and no edge to face."""
    staked = row.get("total_staked", row.get("staked", row.get("mean_staked")))
    return isinstance(staked, (int, float)) and staked == 0


def folder_files(folder: Path) -> str:
    """The files the run left, with their sizes, as its manifest lists them ("" without a list)."""
    if not (folder / "manifest.json").exists():
        return ""
    manifest = read_json(folder / "manifest.json", "manifest", MANIFEST_BYTES, LabError)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    sizes = manifest.get("sizes") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        return ""
    sizes = sizes if isinstance(sizes, dict) else {}
    listed = ", ".join(
        f"{_e(name)} ({_bytes(sizes[name])})" if isinstance(sizes.get(name), int) else _e(name) for name in files
    )
    blocks = {True: "; block files kept", False: "; block files removed once complete"}.get(manifest.get("blocks_kept"))
    return f'<p class="note">Files of the run: {listed}{blocks or ""}.</p>'


def _bytes(n: int) -> str:
    for unit in ("bytes", "kB", "MB"):
        if n < 1000 or unit == "MB":
            return f"{n:,} bytes" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError


def _tournament_table(rows: list[tuple[str, Mapping[str, Any]]], edge: Any) -> str:
    cols = (
        "system", "return per unit staked", "95% interval", "exact −edge", "verdict", "P(ahead)", "P(ruin)",
        "mean final bankroll", "median", "longest losing run", "table-max hits",
    )  # fmt: skip
    out_rows = []
    for label, r in rows:
        ret = r.get("return_per_unit")
        expected = r.get("expected_return", -r["edge"] if isinstance(r.get("edge"), (int, float)) else None)
        if stakes_nothing(r):
            ret = expected = None  # nothing staked: no return per unit staked, no edge faced
        consistent = r.get("consistent_with_edge")
        verdict_class = "good" if consistent is True else "bad" if consistent is False else ""
        cells = [
            f'<td class="l">{_e(label)}</td>',
            f"<td>{_num(ret, '+.2%')}</td>",
            f"<td class='ci'>{_num(r.get('ci_low'), '+.2%')} … {_num(r.get('ci_high'), '+.2%')}</td>",
            f"<td>{_num(expected, '+.2%')}</td>",
            f'<td class="l {verdict_class}">{_e(r.get("verdict", "–"))}</td>',
            f"<td>{_num(r.get('p_ahead'), '.1%')}</td>",
            f"<td>{_num(r.get('p_ruin'), '.1%')}</td>",
            f"<td>{_num(r.get('mean_final_bankroll'), ',.1f')}</td>",
            f"<td>{_num(r.get('median_final_bankroll'), ',.1f')}</td>",
            f"<td>{_num(r.get('longest_losing_run'), 'd')}</td>",
            f"<td>{_num(r.get('table_max_hits'), ',')}</td>",
        ]
        out_rows.append("<tr>" + "".join(cells) + "</tr>")
    header = "".join(f'<th class="{"l" if c in ("system", "verdict") else ""}">{_e(c)}</th>' for c in cols)
    note = (
        f'<p class="note">The exact house edge of a flat Noir stake is {_num(edge, ".3%")}. Return per unit '
        "staked = net result ÷ total staked; intervals come from per-session totals.</p>"
    )
    return f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(out_rows)}</tbody></table>{note}"


def _csv_table(path: Path, max_rows: int = 60) -> str:
    text = read_input_text(path, "results table", RESULTS_BYTES, LabError)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        return f'<p class="box warn">{_e(path.name)} could not be read ({_e(type(exc).__name__)}).</p>'
    if not rows:
        return ""
    keep = [i for i, name in enumerate(rows[0]) if i < 12]
    head = "".join(f"<th>{_e(rows[0][i])}</th>" for i in keep)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(row[i]) if i < len(row) else ''}</td>" for i in keep) + "</tr>"
        for row in rows[1 : max_rows + 1]
    )
    return (
        f'<p class="note">From {_e(path.name)}:</p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


def folder_plots(folder: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, bytes]]:
    """Every PNG in ``folder`` (the tournament's first, in their order), as (name, bytes)."""
    names = sorted(p.name for p in folder.glob("*.png") if p.name not in skip)
    names = [n for n in KNOWN_PLOTS if n in names] + [n for n in names if n not in KNOWN_PLOTS]
    plots = []
    for name in names:
        data = read_input(folder / name, "plot", RESULTS_BYTES, LabError)
        if data[:8] == b"\x89PNG\r\n\x1a\n":  # only real PNGs are embedded
            plots.append((name, data))
    return plots


# -- the fallacy ---------------------------------------------------------------------------------


#: The classroom's export (``trente-lab classroom``, the projector's JSON button) that a folder may hold.
CLASSROOM_FILE = "classroom.json"

#: What ``report`` plays when it must make the fallacy run itself (the companion's session length).
REPORT_SESSION_COUPS = 300


def read_fallacy(folder: Path | None) -> Any:
    """The document in ``folder/fallacy.json`` (``trente-lab fallacy --out``), None when there is none; a file
    the reader refuses (:mod:`strategies.inputs`) is a :class:`LabError`."""
    if folder is None or not (folder / "fallacy.json").exists():
        return None
    return read_json(folder / "fallacy.json", "fallacy tables", RESULTS_BYTES, LabError)


def fallacy_document(
    found: Any, rules: RuleSet, name: str, coups: int, seed: int, sessions: int = 1000
) -> tuple[dict[str, Any], str]:
    """The fallacy analysis: ``found`` (what :func:`read_fallacy` read) if it holds tables, else a run
    made now at the table ``rules`` (called ``name`` on the page). Returns (doc, source);
    the source says why a run was made and how its sizes differ from ``trente-lab fallacy``'s defaults.
    A ``fallacy.json`` without tables is said in one line (:func:`experiments.console.say`)."""
    problem = None
    if found is not None:
        if isinstance(found, dict) and isinstance(found.get("tables"), list):
            return found, "fallacy.json"
        problem = "it holds no fallacy tables"
        say(f"fallacy.json could not be used ({problem}); the fallacy section comes from a run made now")
    import inspect

    defaults = inspect.signature(fallacy_report).parameters
    default_coups, default_sessions = defaults["n_coups"].default, defaults["sessions"].default
    default_session_coups = defaults["session_coups"].default
    sizes = f"{coups:,} coups" + (f" and {sessions:,} sessions of {REPORT_SESSION_COUPS} coups" if sessions else "")
    source = f"a run made for this report ({sizes}"
    if (coups, sessions, REPORT_SESSION_COUPS) != (default_coups, default_sessions, default_session_coups):
        source += (
            f"; trente-lab fallacy plays {default_coups:,} coups and {default_sessions:,} sessions of "
            f"{default_session_coups} coups by default, so its numbers differ a little"
        )
    source += ")"
    if problem:
        source = f"{source}, because fallacy.json could not be used ({problem})"
    document = fallacy_report(rules, coups, 8, seed, sessions=sessions, session_coups=REPORT_SESSION_COUPS)
    return document | {"rules": name}, source


def _png(figure_writer: Any, *args: Any) -> bytes:
    """Draw a figure with one of :mod:`experiments.teaching.fallacy`'s plot functions into memory."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plot.png"
        figure_writer(*args, path)
        return path.read_bytes()


def fallacy_section(document: Mapping[str, Any], source: str, folder_pngs: set[str]) -> str:
    """The fallacy's tables, explanation, systems and plots (the plots drawn now unless in the folder)."""
    parts = [
        f'<p class="meta">{_num(document.get("coups"), ",")} coups ({_num(document.get("decided"), ",")} decided), '
        f"rules {_e(document.get('rules', '–'))}, seed {_e(document.get('seed', '–'))}; "
        f"from {_e(source)}.</p>",
        f'<p class="note">{_e(document.get("definition", ""))}.</p>',
    ]
    for t in document.get("tables", []):
        try:
            parts.append(_streak_table(t))
        except (KeyError, TypeError):
            parts.append('<p class="box warn">A fallacy table could not be read.</p>')
    if isinstance(document.get("explanation"), str):
        parts.append(f'<p class="box">{_e(document["explanation"])}</p>')
    if "fallacy.png" not in folder_pngs:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            parts.append(_img(_png(plot_streaks, document), "fallacy plot", KNOWN_PLOTS["fallacy.png"]))
    systems = document.get("systems")
    if isinstance(systems, dict) and systems.get("systems"):
        rows = "".join(
            f'<tr><td class="l">{_e(system_label(s.get("spec", "")))} ({_e(s.get("spec", ""))})</td>'
            f"<td>{_num(s.get('mean_staked', s.get('coups_bet')), '.0f')}</td>"
            f"<td>{_num(None if stakes_nothing(s) else s.get('return_per_unit'), '+.2%')}</td>"
            f"<td class='ci'>{_num(s.get('low'), '+.2%')} … {_num(s.get('high'), '+.2%')}</td>"
            f"<td>{_num(None if stakes_nothing(s) else s.get('minus_edge'), '+.2%')}</td></tr>"
            for s in systems["systems"]
            if isinstance(s, dict)
        )
        parts.append(
            f"<h3>Same shoes, three ways to bet ({_num(systems.get('sessions'), ',')} sessions of "
            f"{_num(systems.get('coups'), ',')} coups)</h3><table><thead><tr><th class='l'>system</th>"
            "<th>staked per session</th><th>return per unit staked</th><th>95% interval</th>"
            f"<th>exact −edge</th></tr></thead><tbody>{rows}</tbody></table>"
        )
        if "systems.png" not in folder_pngs:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                parts.append(_img(_png(plot_systems, systems), "systems plot", KNOWN_PLOTS["systems.png"]))
    return "\n".join(parts)


def _streak_table(t: Mapping[str, Any]) -> str:
    event, other = str(t["event"]), str(t["other"])
    head = (
        "<tr><th rowspan='2'>k</th>"
        f"<th colspan='3'>after {_e(event.capitalize())} won k in a row</th>"
        f"<th colspan='3'>after {_e(other.capitalize())} won k in a row</th></tr>"
        "<tr>" + "<th>occasions</th><th>" + _e(event.capitalize()) + " won</th><th>95% interval</th>"
        "<th>occasions</th><th>" + _e(event.capitalize()) + " won</th><th>95% interval</th></tr>"
    )
    body = []
    for row in t["rows"]:
        cells = [f"<td>{_e(row['k'])}</td>"]
        for key in (f"after_{event}", f"after_{other}"):
            c = row[key]
            miss = c.get("contains_exact") is False
            style = ' style="color:#b3261e;font-weight:700"' if miss else ""
            cells.append(f"<td>{_num(c.get('occasions'), ',')}</td>")
            cells.append(f"<td{style}>{_num(c.get('frequency'), '.2%')}</td>")
            cells.append(f"<td class='ci'>{_num(c.get('low'), '.2%')} – {_num(c.get('high'), '.2%')}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    title = (
        f"<h3>How often {_e(event.capitalize())} wins after k decided coups in a row "
        f"(exact {_num(t.get('exact'), '.2%')})</h3>"
    )
    return f"{title}<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


# -- rules and glossary ----------------------------------------------------------------------------


def _played_table(results: Mapping[str, Any] | None) -> tuple[RuleSet, str]:
    """The table a tournament's results say it played (its rule values, overrides included) and its
    name; the classic table when they say none this version can read."""
    if results:
        values, name = results.get("rule_values"), results.get("rules_played") or results.get("rules")
        try:
            if isinstance(values, dict):
                return RuleSet(**values), str(name or "the tournament's table")
            if isinstance(name, str):
                return load_rules(name), name
        except (TypeError, ValueError):  # written by another version: describe the classic table instead
            pass
    return load_rules("classic"), "classic"


def _played_preset(results: Mapping[str, Any] | None) -> tuple[RuleSet, str]:
    """The preset a tournament's results name (its rules without overrides: what the fallacy's fresh
    run deals) and its name; the classic table for a preset this version does not know."""
    name = results.get("rules") if results else None
    if isinstance(name, str):
        try:
            return load_rules(name), name
        except LabError:
            pass
    return load_rules("classic"), "classic"


def rules_section(rules: RuleSet, name: str) -> str:
    """The rules in a few sentences, then the table's own values and exact odds (``name``: what the
    table is called, its preset with any overrides)."""
    odds = first_coup(rules.decks)
    edges = house_edges(rules, odds)
    items = "".join(f"<li>{_e(text)}</li>" for text in rules_text(rules))
    values = [
        ("decks", rules.decks),
        ("cut card (cards from the end)", rules.cut_card),
        ("refait rule", rules.refait.value),
        ("second refait", rules.second_refait.value),
        ("insurance", f"{rules.insurance_rate:.0%}" if rules.insurance else "none"),
        ("table limits", f"{rules.table_min:g} – {rules.table_max:g}"),
        ("P(refait) / P(après), first coup", f"{odds.p_refait:.4%} / {odds.p_apres:.4%}"),
        ("P(Noir wins) = P(Rouge wins)", f"{odds.p_noir:.5f}"),
        ("house edge, Noir/Rouge", f"{edges.noir:.4%}"),
        ("house edge, Couleur/Inverse", f"{edges.couleur:.4%}" if rules.couleur_inverse else "closed"),
        ("insured stake", f"{edges.insured:.3%}" if edges.insured is not None else "–"),
    ]
    table = "".join(f'<tr><td class="l">{_e(k)}</td><td>{_e(v)}</td></tr>' for k, v in values)
    return (
        f"<ol>{items}</ol><h3>This table: {_e(name)}</h3>"
        f'<p class="meta">{_e(rules.describe())}</p><table style="width:auto">{table}</table>'
    )


def glossary_section(rules: RuleSet) -> str:
    """The bilingual glossary at the table of ``rules`` (:func:`~experiments.teaching.page.glossary`)."""
    words = glossary(rules)
    rows = "".join(f"<tr><td>{_e(a)}</td><td>{_e(b)}</td><td lang='fr'>{_e(c)}</td></tr>" for a, b, c in words)
    return (
        '<table class="gloss"><thead><tr><th class="l">term / terme</th><th class="l">English</th>'
        f'<th class="l">Français</th></tr></thead><tbody>{rows}</tbody></table>'
    )


# -- the page ------------------------------------------------------------------------------------


# -- a class's own lesson (the classroom's export) ------------------------------------------------------


def classroom_section(path: Path) -> str:
    """The class's own table from ``classroom.json`` (the classroom's export: its coups and predictions):
    the pooled "after k in a row" table and the streak trap, as the projector showed them. A document of
    another shape is said in one line and on the page; a file the reader refuses is a :class:`LabError`
    (the tables are :mod:`experiments.streaks`', as the classroom's own)."""
    document = read_json(path, "classroom export", SESSION_BYTES, LabError)
    try:
        coups = document["coups"]
        names: dict[tuple[Any, str], int] = {}  # (student id, name): a removed and a new "Sam" stay two
        predictions = []
        for made in document["predictions"]:
            predictions.append(
                {
                    names.setdefault((p.get("id"), str(p["name"])), len(names)): (str(p["side"]), int(p["sure"]))
                    for p in made
                }  # fmt: skip
            )
        if len(predictions) != len(coups) or not all(isinstance(c.get("result"), str) for c in coups):
            raise ValueError("the coups and the predictions do not match")
        results = [coup["result"] for coup in coups]
        pooled, trap = pooled_table(results, predictions), streak_trap(results, predictions, list(names.values()))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        problem = f"{path} could not be read ({type(exc).__name__}: {' '.join(str(exc).split())})"
        say(problem + "; the page has no class section")
        return f'<p class="box warn">{_e(problem)}.</p>'
    guesses = sum(map(len, predictions))

    def share(part: int, whole: int) -> str:
        return _num(part / whole if whole else None, ".1%")

    rows = "".join(
        f"<tr><td class='l'>{r['k']}{'+' if r['k'] == 4 else ''} {_e(r['side'].capitalize())}</td>"
        f"<td>{r['occasions']}</td><td>{share(r['same'], r['occasions'])}</td>"
        f"<td>{share(r['predicted_other'], r['predicted_same'] + r['predicted_other'])}</td><td>50%</td></tr>"
        for r in pooled
    )
    trap_rows = "".join(
        f"<tr><td>{r['k']}</td><td>{_num(r['average'], '.1%')} ({r['students']})</td>"
        f"<td>{_num(r['pooled'], '.1%')} ({r['right']}/{r['occasions']})</td>"
        f"<td>{_num(r['expected_average'], '.1%')}</td></tr>"
        for r in trap
    )
    return (
        f'<p class="meta">{len(coups):,} coups, {len(names)} students, {guesses:,} predictions; rules '
        f"{_e(document.get('preset', '–'))}, seed {_e(document.get('seed', '–'))}; from {_e(path.name)}.</p>"
        "<h3>After k decided coups of one side in a row, the next decided coup</h3><table><thead><tr>"
        "<th class='l'>after</th><th>times</th><th>same side again</th><th>class predicted the other</th>"
        f"<th>exact</th></tr></thead><tbody>{rows}</tbody></table>"
        "<h3>The streak trap: after k right in a row, was the next prediction right?</h3><table><thead><tr>"
        "<th>k</th><th>average of each student's own share (students)</th><th>pooled</th>"
        f"<th>expected average, fair game</th></tr></thead><tbody>{trap_rows}</tbody></table>"
        '<p class="note">Each prediction was right with probability one half whatever came before; the average '
        "of short per-student tables is expected below one half (Miller and Sanjurjo, 2018), the pooled share "
        "is the honest estimate.</p>"
    )


def build_report(
    folder: Path | None = None,
    output: Path | None = None,
    rules: RuleSet | str | None = None,
    coups: int = 1_000_000,
    seed: int = 0,
    sessions: int = 1000,
    *,
    name: str | None = None,
) -> Path:
    """Write the HTML report and return its path.

    :param folder: a tournament (or fallacy) output folder, or None for the fallacy and rules only.
    :param output: the HTML file (default ``folder/report.html``, or ``report.html`` here).
    :param rules: the rules to describe and deal the fallacy's run at (a rule set the command line
        resolved, or a preset's name; default: the tournament's, else classic).
    :param name: what the page calls ``rules`` (default: the preset's name, else their description).
    :param coups: coups for the fallacy run when ``folder`` has no ``fallacy.json``.
    :param sessions: sessions per system in that run's companion (0: none).
    """
    if folder is not None and not folder.is_dir():
        raise LabError(f"{folder} is not a folder (give the folder a tournament wrote, or nothing)")
    output = check_output_file(output or ((folder / "report.html") if folder is not None else Path("report.html")))
    results, results_problem = read_results(folder) if folder is not None else (None, None)
    if rules is None:
        table, table_name = _played_table(results)
        dealt, dealt_name = _played_preset(results)  # the fallacy's fresh run, if any
    else:
        table = load_rules(rules)
        table_name = name or (rules if isinstance(rules, str) else table.describe())
        dealt, dealt_name = table, table_name
    plots = folder_plots(folder) if folder is not None else []
    png_names = {png for png, _ in plots}
    found = read_fallacy(folder)
    body = tournament_section(folder) if folder is not None else ""  # every file is read before a line is said
    lesson = folder is not None and (folder / CLASSROOM_FILE).exists()
    lesson_body = classroom_section(folder / CLASSROOM_FILE) if lesson else ""
    sections: list[tuple[str, str, str]] = []
    if folder is not None:
        has_csv = (folder / "results.csv").exists()
        if results_problem:
            say(f"{folder}: {results_problem}" + ("; the table shown is results.csv" if has_csv else ""))
        elif results is None and not has_csv:
            say(f"{folder} holds no tournament (no results.json or results.csv): the page has no tournament section")
        tournament_plots = [(n, d) for n, d in plots if n not in ("fallacy.png", "systems.png")]
        body += "".join(_img(d, n, KNOWN_PLOTS.get(n, n)) for n, d in tournament_plots)
        if body.strip():
            sections.append(("tournament", "The tournament: every system on the same shoes", body))
    if lesson:
        sections.append(("class", "Your class: predictions before each coup", lesson_body))
    fallacy_doc, source = fallacy_document(found, dealt, dealt_name, coups, seed, sessions)
    fallacy_body = fallacy_section(fallacy_doc, source, png_names)
    fallacy_body += "".join(_img(d, n, KNOWN_PLOTS[n]) for n, d in plots if n in ("fallacy.png", "systems.png"))
    sections.append(("fallacy", "The gambler's fallacy: streaks carry no information", fallacy_body))
    sections.append(("rules", "The rules", rules_section(table, table_name)))
    sections.append(("glossary", "Glossary · Glossaire", glossary_section(table)))
    nav = "".join(f'<a href="#{sid}">{_e(title.split(":")[0])}</a>' for sid, title, _ in sections)
    content = "".join(f'<section id="{sid}"><h2>{_e(title)}</h2>{body}</section>' for sid, title, body in sections)
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>trente-lab report — Trente et Quarante</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1><span class="rouge">Trente</span> <span class="noir">et Quarante</span> — what the numbers say</h1>
<p class="meta">trente-lab {_e(version())} · generated {now}{
        " · from " + _e(folder.name or str(folder)) if folder is not None else ""
    }</p>
<nav>{nav}</nav>
</header>
<main>
{content}
</main>
<script>{CHECK_SCRIPT}</script>
</body>
</html>
"""
    output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(output, page)
    return output


__all__ = ["KNOWN_PLOTS", "build_report", "fallacy_document", "folder_plots", "read_results", "tournament_section"]
