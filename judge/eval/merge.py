"""`judge eval merge`: the reports of every shard of one run joined into one report, refusing parts that do not
make one: not a shard, another set file or other settings, a shard missing or given twice, a case in two parts."""

from __future__ import annotations

from typing import Any

from judge.errors import InputError
from judge.eval.provenance import answer_differences, short_digest
from judge.eval.report.model import BadLine, EvalReport, RunMeta

__all__ = ["merge_reports"]


def merge_reports(paths: list[str]) -> EvalReport:
    """One report of the whole set from its shards' reports, cases by id; InputError naming the part at fault."""
    from judge.eval.session import load_report

    parts = [(path, load_report(path)) for path in paths]
    _refuse_mismatched_parts(parts)
    records: dict[str, Any] = {}
    for path, part in parts:
        for record in part.records:
            if record.case_id in records:
                raise InputError(f"report {path}: case {record.case_id!r} is in two parts; merge shards of one run")
            records[record.case_id] = record
    bad = sorted({(b.line, b.problem) for _, part in parts for b in part.bad_lines})
    first = parts[0][1].meta
    meta = RunMeta(run_id="+".join(str(part.meta.run_id) for _, part in parts), source=first.source,
                   set_file_sha256=first.set_file_sha256, judge_version=first.judge_version,
                   prompt_sha256=first.prompt_sha256, settings=first.settings,
                   seconds=round(sum(part.meta.seconds or 0 for _, part in parts), 3),
                   resumed=sum(part.meta.resumed or 0 for _, part in parts), parts=tuple(paths))
    ordered = tuple(sorted(records.values(), key=lambda r: r.case_id))
    return EvalReport(meta, ordered, tuple(BadLine(line, problem) for line, problem in bad))


def _refuse_mismatched_parts(parts: list[tuple[str, EvalReport]]) -> None:
    """Every part a shard I/N of one N, of the first part's set file and settings; each I from 1 to N once."""
    shards = [(path, _shard(path, part.meta)) for path, part in parts]
    first_path, first = parts[0][0], parts[0][1].meta
    count = shards[0][1][1]
    seen: dict[int, str] = {}
    for (path, part), (_, (index, of)) in zip(parts, shards):
        if part.meta.set_file_sha256 != first.set_file_sha256:
            raise InputError(f"report {path}: of another eval set file than report {first_path} (set file sha256 "
                             f"{short_digest(part.meta.set_file_sha256)} vs {short_digest(first.set_file_sha256)}); "
                             "merge the shards of one set file")
        differences = answer_differences(part.meta, first)
        if differences:
            raise InputError(f"report {path}: judged with other settings than report {first_path} "
                             f"({'; '.join(differences)}); merge the shards of one run's settings")
        if of != count:
            raise InputError(f"report {path}: shard {index}/{of}, but report {first_path} is shard "
                             f"{shards[0][1][0]}/{count}; merge the shards of one split")
        if index in seen:
            raise InputError(f"report {path}: shard {index}/{of} again (also report {seen[index]}); give each "
                             "shard once")
        seen[index] = path
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in seen]
    if missing:
        given = ", ".join(f"{path} ({index}/{count})" for index, path in sorted(seen.items()))
        raise InputError(f"shard {', '.join(missing)} missing: given {given}; pass the report of every shard "
                         f"1/{count} to {count}/{count}")


def _shard(path: str, meta: RunMeta) -> tuple[int, int]:
    from judge.eval.cases import parse_shard

    if not meta.shard:
        raise InputError(f"report {path}: not a shard's report (it records no shard); merge joins the reports of "
                         "`judge eval --shard I/N`, one per shard")
    try:
        return parse_shard(meta.shard)
    except InputError:
        raise InputError(f"report {path}: its shard {meta.shard!r} is not I/N; merge the reports "
                         "`judge eval --shard I/N` wrote") from None

