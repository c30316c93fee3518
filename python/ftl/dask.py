"""Fleet triage on a Dask cluster: ``ftl batch`` with Dask distributed doing the distribution.

Dask schedules one task per input; each task runs ftl on one trace in its worker process (the GIL released, one
thread), writes that trace's Hive partition and returns its triage row(s). The driver ranks the rows exactly as
``ftl batch`` does and writes ``triage.parquet``. Output layout under ``out_dir`` — the one of
``ftl batch -o DIR --format parquet``::

    out_dir/triage.parquet                      the ranked triage table
    out_dir/frames/trace=NAME/part-0.parquet    every trace's frames (the rows of ``ftl frames``)
    out_dir/series/trace=NAME/part-0.parquet    every text capture's frames

Works with any Dask deployment (``LocalCluster`` on a laptop, ``dask-jobqueue`` on an HPC scheduler,
``dask-kubernetes``, ...): the workers need ``ftl`` installed and must reach the inputs and ``out_dir`` (a shared
file system, or fsspec URLs such as ``s3://bucket/traces`` with the matching fsspec backend installed).

Needs the ``dask`` extra: ``pip install './python[dask]'``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import polars as pl

from . import _ftl, _options

try:
    import fsspec
    from distributed import Client, LocalCluster, get_client
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "ftl.dask needs Dask distributed: pip install 'ftl[dask]' (from a checkout: pip install './python[dask]')"
    ) from e

__all__ = ["triage"]

PathOrUrl = Union[str, "os.PathLike[str]"]


def _is_local(path: str) -> bool:
    protocol = fsspec.utils.get_protocol(path)
    return protocol in ("file", "local")


def _local(path: str) -> str:
    """A local path without a ``file://`` prefix."""
    return fsspec.core.strip_protocol(path) if path.startswith(("file:", "local:")) else path


def _remote_inputs(
    url: str, recursive: bool, storage_options: Dict[str, Any]
) -> List[Tuple[str, bool]]:
    """(URL, found by listing) of the files a remote path names, as ``ftl batch`` expands a local one: a file
    is itself, a directory lists its files (all levels with ``recursive``), anything else is a glob."""
    fs, _, _ = fsspec.core.get_fs_token_paths(url, storage_options=storage_options)
    root = fs._strip_protocol(url)
    unstrip = fs.unstrip_protocol
    if fs.isfile(root):
        return [(unstrip(root), False)]
    if fs.isdir(root):
        if recursive:
            found = fs.find(root)
        else:
            found = [e["name"] for e in fs.ls(root, detail=True) if e.get("type") == "file"]
        return [(unstrip(p), True) for p in sorted(found)]
    matches = sorted(p for p in fs.glob(root) if fs.isfile(p))
    return [(unstrip(p), True) for p in matches]


def _failed(name: str, shown: str, cause: str) -> Dict[str, Any]:
    return {
        "rows": [{"trace": name, "path": shown, "file_bytes": 0, "status": f"{shown}: {cause}"}],
        "file_bytes": 0,
        "failed": True,
    }


def _triage_one(
    path: str,
    name: str,
    discovered: bool,
    out_dir: Optional[str],
    by: str,
    options: Dict[str, Any],
    storage_options: Dict[str, Any],
) -> Optional[str]:
    """The Dask task: one input's outcome as JSON (``None``: a remote file found by listing that ftl does not
    read, skipped as ``ftl batch`` skips it). Never raises: any failure is the input's failed row."""
    import json

    try:
        remote_out = out_dir is not None and not _is_local(out_dir)
        if _is_local(path) and not remote_out:
            return _ftl.triage_one(
                _local(path), name, None if out_dir is None else _local(out_dir), by, options
            )
        with tempfile.TemporaryDirectory(prefix="ftl-dask-") as tmp:
            local = path
            if not _is_local(path):
                local = os.path.join(tmp, "in", name)
                os.makedirs(os.path.dirname(local))
                with fsspec.open(path, "rb", **storage_options) as src, open(local, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                if discovered and _ftl.skip_reason(local) is not None:
                    return None
            else:
                local = _local(path)
            staging = os.path.join(tmp, "out") if remote_out else out_dir
            outcome = _ftl.triage_one(
                local, name, None if staging is None else _local(staging), by, options, path
            )
            if remote_out:
                fs, _, (root,) = fsspec.core.get_fs_token_paths(out_dir, storage_options=storage_options)
                for sub in ("frames", "series"):
                    part = os.path.join(staging, sub, f"trace={name}")
                    if os.path.isdir(part):
                        fs.put(part, f"{root}/{sub}/trace={name}", recursive=True)
            return outcome
    except Exception as e:  # noqa: BLE001 - one input must never fail the job
        return json.dumps(_failed(name, path, f"{type(e).__name__}: {e}"))


def triage(
    paths: Union[PathOrUrl, Iterable[PathOrUrl]],
    out_dir: Optional[PathOrUrl],
    client: Optional[Client] = None,
    *,
    by: str = "trace",
    sort: str = "janky_pct",
    recursive: bool = False,
    storage_options: Optional[Dict[str, Any]] = None,
    **options: Any,
) -> pl.DataFrame:
    """Triage many traces and text captures on a Dask cluster: the rows and files of
    ``ftl batch PATHS -o OUT_DIR --format parquet``, returned as the ranked triage table.

    Args:
        paths: files, directories or globs, local or fsspec URLs (``s3://bucket/fleet/``, ``gs://...``,
            ``file:///data/traces``). Files named directly are always analysed; files found in directories or by
            globs are analysed when ftl recognises their content (others are skipped, as ``ftl batch`` does).
        out_dir: where ``triage.parquet`` and the Hive-partitioned ``frames/`` / ``series/`` go (a local path
            every worker can reach, or an fsspec URL); its previous ``frames/`` and ``series/`` are replaced.
            ``None``: only the table is returned.
        client: the ``distributed.Client`` to run on; ``None``: the current client if there is one, else a
            temporary ``LocalCluster`` with one single-threaded worker process per core.
        by: ``"trace"``, ``"process"`` or ``"layer"`` — what one row covers.
        sort: the numeric column rows are ranked by (largest first; ties by path; failed inputs last).
        recursive: descend into subdirectories.
        storage_options: passed to fsspec for remote paths (credentials, endpoint, ...).
        **options: the analysis options of :func:`ftl.analyze` (``process``, ``layer``, ``present_threshold``
            in ms, ``vsync_period`` in ms, ``refresh_rate`` in Hz, ``sf_rules``, ``window``, ``marker``, ...).

    Returns:
        The triage table (columns of :func:`ftl.triage`); an input that cannot be analysed is a row whose
        ``status`` is the error, never a failed job.
    """
    storage_options = dict(storage_options or {})
    analysis = _options(**options)
    _ftl.check_options(by, sort, analysis)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    local = [_local(p) for p in paths if _is_local(p)]
    remote = [p for p in paths if not _is_local(p)]
    jobs, _skipped = _ftl.collect_inputs(local, recursive) if local else ([], [])
    found: List[Tuple[str, bool]] = [(path, False) for path, _ in jobs]
    seen = {p for p, _ in found}
    for url in remote:
        for p, discovered in _remote_inputs(url, recursive, storage_options):
            if p not in seen:
                seen.add(p)
                found.append((p, discovered))
    names = _ftl.job_names([p for p, _ in found])
    out = None if out_dir is None else os.fspath(out_dir)
    if out is not None:
        if _is_local(out):
            out = _local(out)
            _ftl.clear_partitions(out)
        else:
            fs, _, (root,) = fsspec.core.get_fs_token_paths(out, storage_options=storage_options)
            for sub in ("frames", "series"):
                if fs.exists(f"{root}/{sub}"):
                    fs.rm(f"{root}/{sub}", recursive=True)
    owned = None
    if client is None:
        try:
            client = get_client()
        except ValueError:
            # One thread per worker, polars' pool (the Parquet writer) included.
            owned = LocalCluster(
                n_workers=os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                env={"POLARS_MAX_THREADS": "1"},
            )
            client = Client(owned)
    try:
        futures = client.map(
            _triage_one,
            [p for p, _ in found],
            names,
            [d for _, d in found],
            pure=False,
            out_dir=out,
            by=by,
            options=analysis,
            storage_options=storage_options,
        )
        outcomes = [o for o in client.gather(futures) if o is not None]
    finally:
        if owned is not None:
            client.close()
            owned.close()
    if out is None or _is_local(out):
        return _ftl.triage_table(outcomes, sort, out)
    with tempfile.TemporaryDirectory(prefix="ftl-dask-") as tmp:
        table = _ftl.triage_table(outcomes, sort, tmp)
        fs, _, (root,) = fsspec.core.get_fs_token_paths(out, storage_options=storage_options)
        fs.put(os.path.join(tmp, "triage.parquet"), f"{root}/triage.parquet")
    return table
