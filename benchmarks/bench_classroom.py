"""The classroom under a class's load: simulated students predicting every coup.

    python -m benchmarks.bench_classroom [--students 100] [--coups 300] [--max-seconds 900] [--no-systems]

Starts ``trente-lab classroom`` in its own process on 127.0.0.1 (a fresh session file in a temporary
folder), joins ``--students`` students, each with a websocket open as their page has (so every change
is pushed to every one of them) and each playing a betting system (the five in turn; ``--no-systems``:
none), so that every deal plays every student's system too; then for each of ``--coups`` coups: every
student posts a prediction naming the coup (all at once), and when all have been answered the teacher
deals that coup, twice (a double-click: the second must deal nothing), and one student's tap for the
coup just dealt arrives late (it must be refused, not slide onto the next coup). It stops by itself
after the last coup or after ``--max-seconds`` (then it says how far it got).

Printed: whether any prediction was lost (the server's export against what the students sent and were
told was accepted), the coup-number checks (a reply naming another coup, a late tap accepted, a second
deal dealt), the server's reply times to a prediction and to a deal (median and 99th
percentile, seen by the client on the same machine), beside the **reference** measured in the same
rounds: a static file from the same server, fetched :data:`REFERENCE` times a coup alongside the
predictions (what any reply costs there: the HTTP round trip under the same load), and the views each
student's socket received. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from experiments.classroom.systems import SYSTEMS
from tests._classroom import start

REFERENCE = 5  #: requests for a static file each coup, among the predictions


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(base: str, token: str, code: str, students: int, coups: int, max_seconds: float, systems: bool) -> dict:
    import httpx
    import websockets

    started = time.monotonic()
    limits = httpx.Limits(max_connections=students + 10, max_keepalive_connections=students + 10)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        keys = []
        for i in range(students):
            response = await http.post("/api/join", json={"name": f"student {i}", "code": code})
            response.raise_for_status()
            keys.append(response.json()["key"])
            if systems:
                picked = await http.post("/api/system", json={"key": keys[-1], "system": SYSTEMS[i % len(SYSTEMS)]})
                picked.raise_for_status()
        views = [0] * students

        async def listen(i: int, key: str, ready: asyncio.Event) -> None:
            async with websockets.connect(base.replace("http", "ws") + "/ws", max_size=2**22) as socket:
                await socket.send(json.dumps({"key": key}))
                ready.set()
                async for _ in socket:
                    views[i] += 1

        readies = [asyncio.Event() for _ in keys]
        listeners = [asyncio.create_task(listen(i, k, r)) for i, (k, r) in enumerate(zip(keys, readies))]
        await asyncio.gather(*(r.wait() for r in readies))
        rng = random.Random(0)
        sent: list[dict[str, tuple[str, int]]] = []
        predict_times: list[float] = []
        deal_times: list[float] = []
        reference_times: list[float] = []
        refused = failed = other_coup = late_taken = dealt_twice = 0

        async def predict(i: int, key: str, guesses: dict, coup: int) -> None:
            nonlocal refused, failed, other_coup
            side, sure = rng.choice(["noir", "rouge"]), rng.randint(1, 3)
            t0 = time.perf_counter()
            try:
                response = await http.post("/api/predict", json={"key": key, "side": side, "sure": sure, "coup": coup})
            except httpx.TransportError:  # no answer: counted, not retried (it would hide the failure)
                failed += 1
                return
            predict_times.append(time.perf_counter() - t0)
            if response.status_code == 200:
                guesses[f"student {i}"] = (side, sure)
                other_coup += response.json()["coup"] != coup
            else:
                refused += 1

        async def reference() -> None:
            t0 = time.perf_counter()
            response = await http.get("/static/classroom.css")
            reference_times.append(time.perf_counter() - t0)
            response.raise_for_status()

        for n in range(coups):
            if time.monotonic() - started > max_seconds:
                break
            if n % 50 == 0:
                print(f"coup {n + 1} of {coups}, {time.monotonic() - started:.0f} s", file=sys.stderr)
            guesses: dict[str, tuple[str, int]] = {}
            await asyncio.gather(
                *(predict(i, k, guesses, n + 1) for i, k in enumerate(keys)), *(reference() for _ in range(REFERENCE))
            )
            t0 = time.perf_counter()
            response = await http.post("/api/teacher/deal", json={"coup": n + 1}, headers={"X-Teacher-Token": token})
            deal_times.append(time.perf_counter() - t0)
            response.raise_for_status()
            again = await http.post("/api/teacher/deal", json={"coup": n + 1}, headers={"X-Teacher-Token": token})
            dealt_twice += again.json().get("dealt") is not False
            late = await http.post("/api/predict", json={"key": keys[n % len(keys)], "side": "noir", "coup": n + 1})
            late_taken += late.status_code != 400 or not late.json()["error"].startswith("too late")
            sent.append(guesses)
        await asyncio.sleep(1)  # the last views on their way
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
        exported = (await http.get("/api/teacher/export.json", headers={"X-Teacher-Token": token})).json()
    kept = [{p["name"]: (p["side"], p["sure"]) for p in coup} for coup in exported["predictions"]]
    lost = sum(len(s) for s in sent) - sum(len(set(s.items()) & set(k.items())) for s, k in zip(sent, kept))
    return {
        "coups": len(sent), "students": students, "predictions": sum(len(s) for s in sent), "refused": refused,
        "failed": failed, "other_coup": other_coup, "late_taken": late_taken, "dealt_twice": dealt_twice,
        "dealt": len(exported["coups"]),
        "lost": lost, "extra": sum(len(k) for k in kept) - sum(len(s) for s in sent),
        "predict_ms": (1000 * statistics.median(predict_times), 1000 * percentile(predict_times, 0.99)),
        "deal_ms": (1000 * statistics.median(deal_times), 1000 * percentile(deal_times, 0.99)),
        "reference_ms": (1000 * statistics.median(reference_times), 1000 * percentile(reference_times, 0.99)),
        "views": (min(views), statistics.median(views)), "seconds": time.monotonic() - started,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--coups", type=int, default=300)
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--systems", action=argparse.BooleanOptionalAction, default=True,
                        help="every student plays a betting system (default)")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = start(Path(tmp) / "bench-session.json", "--joins-per-address", str(args.students + 10))
        try:
            r = asyncio.run(
                run(server.base, server.token, server.code, args.students, args.coups, args.max_seconds, args.systems)
            )
        finally:
            server.stop()
            problems = [line.rstrip() for line in server.later if line.strip() and not line.startswith("stopped")]
            if problems:
                print("the server printed:\n" + "\n".join(problems[-20:]), file=sys.stderr)
    playing = "each playing a betting system" if args.systems else "no betting systems"
    print(
        f"{r['students']} students ({playing}), {r['coups']} coups of {args.coups} in {r['seconds']:.0f} s (127.0.0.1)"
    )
    print(
        f"predictions accepted {r['predictions']:,}, refused {r['refused']}, unanswered {r['failed']}, "
        f"lost {r['lost']} (accepted but not in the export), extra {r['extra']}"
    )
    print(
        f"coup numbers: replies naming another coup {r['other_coup']}, late taps accepted {r['late_taken']} "
        f"(of {r['coups']}), second deals dealt {r['dealt_twice']} (of {r['coups']}); coups dealt {r['dealt']}"
    )
    print(f"reply to a prediction: median {r['predict_ms'][0]:.1f} ms, p99 {r['predict_ms'][1]:.1f} ms")
    print(f"reply to a deal:       median {r['deal_ms'][0]:.1f} ms, p99 {r['deal_ms'][1]:.1f} ms")
    print(
        f"reference, a static file in the same rounds: median {r['reference_ms'][0]:.1f} ms, "
        f"p99 {r['reference_ms'][1]:.1f} ms (a prediction's median is {r['predict_ms'][0] / r['reference_ms'][0]:.2f}x)"
    )
    print(f"views pushed to each student's socket: least {r['views'][0]}, median {r['views'][1]:.0f}")


if __name__ == "__main__":
    main()
