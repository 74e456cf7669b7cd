"""Where independent tasks run: in this process, in N local processes, or on a Dask cluster.

Every command that fans work out (``replay`` of many videos, ``simulate --sweep``, ``synth``)
takes the same two options and gets a :class:`concurrent.futures.Executor` from
:func:`executor`, so the command's code is the same whichever engine runs it:

- ``--workers N``: N local processes (``concurrent.futures``); 1 runs every task here, in
  order, as a plain loop would.
- ``--cluster ADDRESS``: a Dask distributed scheduler (``dask scheduler`` on one machine,
  ``dask worker ADDRESS`` on each; see docs/scale.md). Each task is a module-level function
  that the workers import from their own cardref install; files are passed as paths, so inputs
  and outputs must lie in a folder every worker sees at the same path.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing as mp
import os
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from referee.errors import CardrefError


@dataclass(frozen=True)
class Workers:
    """The choice of ``--workers`` / ``--cluster``."""

    processes: int = 1
    cluster: str | None = None  # a Dask scheduler's address, e.g. tcp://10.0.0.5:8786

    def describe(self) -> str:
        if self.cluster:
            return f"Dask cluster {self.cluster}"
        return "1 process" if self.processes <= 1 else f"{self.processes} local processes"


def add_worker_args(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--workers", type=int, metavar="N",
        help=f"local processes that {what} (default: all cores; 1: one after another, here)",
    )
    parser.add_argument(
        "--cluster", metavar="ADDRESS",
        help="a Dask scheduler (tcp://HOST:8786) whose workers run the tasks instead (docs/scale.md)",
    )


def workers_from_args(args: argparse.Namespace) -> Workers:
    if args.cluster and args.workers is not None:
        raise CardrefError("--workers and --cluster: choose one (a cluster's size is its workers')")
    if args.workers is not None and args.workers < 1:
        raise CardrefError(f"--workers: expected a positive number, got {args.workers}")
    if args.cluster:
        return Workers(cluster=args.cluster)
    return Workers(processes=args.workers or os.cpu_count() or 1)


class InlineExecutor(cf.Executor):
    """Runs each task at once, in this process: ``--workers 1`` is the plain loop."""

    def submit(self, fn: Callable, /, *args, **kwargs) -> cf.Future:
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # handed back through the future, as a pool would
            if isinstance(e, KeyboardInterrupt):
                raise
            future.set_exception(e)
        return future


@contextmanager
def executor(workers: Workers) -> Iterator[cf.Executor]:
    """An executor for ``workers``; closed (the local processes ended, the cluster's client
    disconnected) when the block ends."""
    if workers.cluster:
        try:
            from distributed import Client
        except ImportError:
            raise CardrefError(
                f"--cluster {workers.cluster}: needs Dask distributed (pip install 'cardref[scale]')"
            ) from None

        try:
            client = Client(workers.cluster, timeout="15s")
        except (OSError, TimeoutError, ValueError) as e:
            raise CardrefError(f"--cluster {workers.cluster}: no Dask scheduler answered ({e})") from None
        with client:
            # pure=False: two tasks with the same arguments are still two tasks.
            yield client.get_executor(pure=False)
    elif workers.processes <= 1:
        yield InlineExecutor()
    else:
        ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        with cf.ProcessPoolExecutor(workers.processes, mp_context=ctx) as pool:
            yield pool


def completed(pool: cf.Executor, tasks: Iterable[tuple[Hashable, Callable, tuple]]
              ) -> Iterator[tuple[Hashable, cf.Future]]:
    """Submit every ``(key, function, arguments)`` and yield ``(key, future)`` as each task
    finishes; in this process, each as soon as it has run (so that a progress bar moves)."""
    if isinstance(pool, InlineExecutor):
        for key, fn, args in tasks:
            yield key, pool.submit(fn, *args)
        return
    futures = {pool.submit(fn, *args): key for key, fn, args in tasks}
    for future in cf.as_completed(futures):
        yield futures[future], future
