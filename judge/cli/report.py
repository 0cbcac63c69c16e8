"""`judge report [PATH ...]`: seed 001's "Execution Evidence" section in Markdown, from the evidence.json files `judge run` wrote.

The artifact tree is written beside commands that may have planted things in it: directories are
walked without following links, and a found evidence.json that is not a regular file (a link, a
FIFO that would block the read) is refused, never read. A record's artifact paths are not
trusted either: its links point to the files beside the evidence.json that was read.
"""

from __future__ import annotations

import argparse
import os
import stat
from typing import TYPE_CHECKING, Any

from judge.errors import InputError
from judge.lazy_pattern import lazy_compile

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["DEFAULT_PATH", "add_report_command"]

DEFAULT_PATH = "$XDG_STATE_HOME/judge/artifacts"  # shown in help; judge.config_layers.state_dir() is the real one
_EVIDENCE = "evidence.json"
_UNPUBLISHED = lazy_compile(r"^\..*\.incomplete-")  # judge run's directory before it is renamed to the step's
_TIMESTAMP = lazy_compile(r"^(?P<base>[0-9-]+T[0-9:]+)(?:\.(?P<fraction>[0-9]+))?(?P<zone>Z|[+-][0-9:]+)$")


def add_report_command(commands: Any) -> None:
    report = commands.add_parser("report", help="the Execution Evidence table (Markdown) of recorded runs")
    report.add_argument("paths", nargs="*", metavar="PATH",
                        help=f"an evidence.json, or a directory searched for them (default: {DEFAULT_PATH})")
    report.add_argument("--out", metavar="FILE", help="write the Markdown to FILE; links are relative to its directory")
    report.set_defaults(run=_report)


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path  # here and below: `judge --help` imports this module, and pathlib costs ~3 ms

    from judge.cli.record_file import read_record
    from judge.cli.output import write_stdout
    from judge.runs.record_table import render_record_table
    from judge.config_layers import state_dir

    paths = args.paths or [str(state_dir() / "artifacts")]
    files = _evidence_files(paths, named=bool(args.paths))
    if not files:
        raise InputError(f"no {_EVIDENCE} found under {', '.join(paths)}; `judge run --step ID -- CMD ARGS...` "
                         f"records a run under judge's state directory (artifacts/RUN_ID/STEP/{_EVIDENCE})")
    records = sorted(((read_record(str(file), "evidence file"), file) for file in files),
                     key=lambda pair: (_instant(pair[0].started_at), str(pair[1])))
    link_base = Path(args.out).absolute().parent if args.out else Path.cwd()
    text = "## Execution Evidence\n\n" + render_record_table(
        [_beside(record, file) for record, file in records], link_base=link_base)
    if args.out is None:
        write_stdout(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{args.out}: cannot write it ({exc.strerror or exc})", field="out") from None
    return 0


def _evidence_files(paths: list[str], *, named: bool) -> list[Path]:
    """Every evidence.json the paths name, once each; a named path that is missing is an InputError."""
    from pathlib import Path

    found: dict[str, Path] = {}
    for given in paths:
        try:
            mode = os.stat(given).st_mode
        except FileNotFoundError:
            if named:
                raise InputError(f"{given}: no such file or directory; give an {_EVIDENCE} or a directory of them")
            continue
        except OSError as exc:
            raise InputError(f"{given}: cannot read it ({exc.strerror or exc})") from None
        if stat.S_ISDIR(mode):
            files = _walk(Path(given))
        elif stat.S_ISREG(mode):
            files = [Path(given)]
        else:
            raise InputError(f"{given}: not a file or a directory; give an {_EVIDENCE} or a directory of them")
        for file in files:
            found.setdefault(os.path.realpath(file), file)
    return list(found.values())


def _walk(top: Path) -> list[Path]:
    from pathlib import Path

    def refuse(error: OSError) -> None:
        raise InputError(f"{error.filename}: cannot read it ({error.strerror or error})")

    files = []
    for directory, subdirectories, names in os.walk(top, onerror=refuse):  # links to directories are not entered
        subdirectories[:] = [name for name in subdirectories if not _UNPUBLISHED.match(name)]
        if _EVIDENCE in names:
            path = Path(directory, _EVIDENCE)
            if not _regular(path):
                raise InputError(f"{path}: not a regular file (judge run writes one); it is not judge's evidence: "
                                 "remove it, or report on the other directories")
            files.append(path)
    return files


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:  # gone since it was listed
        return False


def _beside(record: Any, file: Path) -> Any:
    """The record with its artifacts where they are: beside the evidence.json read (only their names are kept)."""
    from pathlib import Path

    directory = file.absolute().parent
    return record.model_copy(update={"artifacts": tuple(directory / Path(name).name for name in record.artifacts)})


def _instant(timestamp: str) -> tuple[str, str]:
    """A sort key in UTC for the schema's timestamps (any zone, any fraction), on Python 3.10 too."""
    from datetime import datetime, timezone

    parts = _TIMESTAMP.match(timestamp)
    if parts is None:  # the schema's pattern admits no other shape
        return ("~", timestamp)
    zone = "+00:00" if parts["zone"] == "Z" else parts["zone"]
    fraction = (parts["fraction"] or "")[:6].ljust(6, "0")
    try:
        moment = datetime.fromisoformat(f"{parts['base']}.{fraction}{zone}").astimezone(timezone.utc)
    except ValueError:  # the pattern admits a 13th month
        return ("~", timestamp)
    return (moment.isoformat(), timestamp)
