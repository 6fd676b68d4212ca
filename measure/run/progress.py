"""Progress for ``gloss measure run``: a rich progress bar on a terminal, plain lines in logs.

On a terminal the bar shows the row being measured (experiment, kernel, size), rows done of rows in
the run and the time elapsed, and each finished row is printed above it. Where output is not a
terminal (the node's logs), each finished row is one plain line, so the log reads as a table.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class Reporter:
    """Progress: a rich bar on a terminal, one plain line per row elsewhere (logs)."""

    def __init__(self, total: int, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.live = self.console.is_terminal
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            disable=not self.live,
        )
        self.task = self.progress.add_task("measuring", total=total)

    def __enter__(self) -> Reporter:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def start(self, text: str) -> None:
        self.progress.update(self.task, description=text)

    def done(self, line: str) -> None:
        self.progress.advance(self.task)
        if self.live:
            self.progress.console.print(line, highlight=False)
        else:
            print(line, flush=True)

    def note(self, line: str) -> None:
        if self.live:
            self.progress.console.print(line, highlight=False)
        else:
            print(line, flush=True)
