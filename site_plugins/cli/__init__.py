"""``gloss``: the command line the MkDocs plugins share their logic with.

Owns: the `gloss` commands (argv in, exit code out) but measure, links, compare and export.
May import: site_plugins.publishing, site_plugins.content, site_plugins.files, site_plugins.links,
    site_plugins.measured, site_plugins.signoff, measure.store.

Each command group lives in its own module and is imported only when asked for, so ``gloss --help``
and ``gloss measure ...`` run on a verification node without MkDocs, and nothing imports PyCUDA unless a
GPU command runs. Exit codes: 0 ok, 1 check failed, 2 usage or environment error.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from site_plugins.files.pipes import exit_with

# command -> (module, function, one-line help)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("site_plugins.cli.check", "main", "run every check the build runs, without building"),
    "build": ("site_plugins.cli.build", "main", "build the site; a failed build keeps the last good one"),
    "audit": ("site_plugins.cli.audit", "main", "check that a built site (any engine's) holds only what is published"),
    "measure": ("measure.cli", "main", "run, verify and list measurements (run needs a verification node)"),
    "links": ("site_plugins.links.cli", "main", "check source links and record evidence"),
    "compare": ("measure.report.cli", "compare_main", "compare two sets of results row by row (faster/slower/same)"),
    "export": ("measure.report.cli", "export_main", "write results as Google Benchmark or Bencher (BMF) JSON"),
    "new": ("site_plugins.cli.scaffold", "new_main", "scaffold a new term or lesson"),
    "sign": ("site_plugins.cli.sign", "sign_main", "sign an entry as its author or reviewer"),
    "status": ("site_plugins.cli.status", "status_main", "show each entry's sign-off state"),
    "diff": ("site_plugins.cli.status", "diff_main", "show what changed in an entry since sign-off"),
    "signers": ("site_plugins.cli.signers", "main", "export keys and sign-offs for stock `ssh-keygen -Y verify`"),
}


def usage() -> str:
    width = max(len(c) for c in COMMANDS)
    lines = ["usage: gloss COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "Run 'gloss COMMAND --help' for a command's options."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"gloss: unknown command '{name}'\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, func_name, _ = COMMANDS[name]
    module = importlib.import_module(module_name)
    func: Callable[[list[str]], int] = getattr(module, func_name)
    return func(rest)


#: Commands whose process keeps the garbage collector off what lives until the exit (see :func:`entry`).
FROZEN = frozenset({"links"})


def entry() -> NoReturn:
    """The process's entry point: the ``gloss`` script and ``python -m site_plugins.cli``.

    For ``gloss links``, what lives as long as the process is frozen out of the garbage collector's
    reach (``gc.freeze``), where the collector would only traverse it again and again to find nothing
    (bench/links/README.md):

    - the command's modules, imported here with the collector paused (about 3 ms of a check's start-up);
    - at the exit, everything still alive: the interpreter's shutdown would otherwise traverse it all once
      more (the HTTP stack, a run's results), about 37 ms of a 1,000-URL check's CPU. The exit is
      otherwise the usual one: atexit handlers, stream flushing and the exit status are as before; only
      finalizers of objects in reference cycles do not run, and the links commands close every file
      they write before they return.

    :func:`main` itself (which tests call in process) freezes nothing."""
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    frozen = command in FROZEN
    if frozen and gc.isenabled():
        gc.disable()
        try:
            importlib.import_module(COMMANDS[command][0])
        finally:
            gc.freeze()
            gc.enable()

    def run() -> int:
        code = main()
        if frozen:
            gc.freeze()
        return code

    exit_with(run)  # `gloss ... | head`: no BrokenPipeError traceback (site_plugins/files/pipes.py)


if __name__ == "__main__":
    entry()
