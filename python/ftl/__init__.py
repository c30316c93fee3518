"""ftl — did it jank, where, and whose fault was it? Android frame timing from Python.

Reads Perfetto traces with SurfaceFlinger FrameTimeline data (Android 12+; plain, gzip, compressed packets) and
the text captures testers already take (``dumpsys SurfaceFlinger --latency``, ``dumpsys gfxinfo [framestats]``,
Choreographer logcat); what a file is comes from its content, not its name. Every table is the one the ``ftl``
command line writes, with the same rows, columns and dtypes, as a polars DataFrame (``.to_pandas()`` for
pandas):

    >>> import ftl
    >>> report = ftl.analyze("trace.perfetto-trace")        # the `ftl analyze --format json` object
    >>> frames = ftl.frames("trace.perfetto-trace")         # one row per app frame (SurfaceFrame)
    >>> frames.group_by("layer_name").agg((pl.col("dur_ns") / 1e6).quantile(0.99))
    >>> ftl.triage(["fleet/"], by="layer")                  # `ftl batch` on this machine

Units are in the column names: ``_ns`` nanoseconds on the trace clock, ``_ms`` milliseconds, ``_hz`` hertz,
``_pct`` percent, ``_bytes`` bytes. A file ftl cannot use raises a :class:`TraceError` subclass naming the file
and the cause. Reading releases the GIL, so threads analyse traces in parallel. Fleet triage on a Dask cluster:
:mod:`ftl.dask`.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import polars as pl

from . import _errors, _ftl
from ._errors import (
    CaptureError,
    NoFrameTimelineError,
    NotATraceError,
    OutputError,
    ReadError,
    TraceError,
    TruncatedTraceError,
)

__version__: str = _ftl.__version__

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["analyze", "frames", "slices", "table", "report_tables", "triage", "TABLES"] + _errors.__all__

#: The Perfetto stdlib tables :func:`table` rebuilds, by their Perfetto names.
TABLES: List[str] = list(_ftl.table_names())

_OPTIONS_DOC = """
    Analysis options (keyword-only; the options of ``ftl analyze`` with ``_`` for ``-``):
        process: keep only processes whose name contains this (or whose pid is this).
        layer: keep only layers matching this glob, e.g. ``"*MainActivity*"``.
        present_threshold: present threshold of the jank classifier, ms (default 2.0): |actual − expected
            present| above it is late/early.
        vsync_period: vsync period, ms, instead of inferring it from the trace (VRR displays, odd traces).
        refresh_rate: refresh rate, Hz, instead of inferring the vsync period (not with ``vsync_period``).
        sf_rules: one Android release's SurfaceFlinger jank rules: ``"a12"``, ``"a13"``, ``"a14"``,
            ``"a14qpr2"``, ``"a15"``, ``"a16"`` (default: the ones the trace shows).
        layer_name: layer name of a ``dumpsys SurfaceFlinger --latency`` capture (default: the file name
            without its extension).
        gfxinfo_drop_flagged: gfxinfo: drop PROFILEDATA rows whose Flags is not 0 first.
        macrobenchmark: also compute AndroidX Macrobenchmark's FrameTimingMetric for this package.
        marker: analyse only the frames inside each span of these atrace sections / CUJs (a name, or a list).
        window: analyse only the frames inside these ``"START..END"`` ranges after the first FrameTimeline
            slice, each bound in ms (``"1500ms"``), s (``"4s"``) or bare seconds (``"1.5..4"``); a name or a list.
"""

_ERRORS_DOC = """
    Raises:
        ReadError: the file cannot be opened or read (an ``OSError`` too).
        NotATraceError: empty file, bytes that are no trace or capture ftl reads, broken packet framing.
        NoFrameTimelineError: a trace without FrameTimeline events.
        TruncatedTraceError: a trace cut off before any FrameTimeline event.
        CaptureError: a text capture that cannot be used (``line`` says where).
        ValueError: an option ftl cannot use.
"""


def _options(
    process: Optional[Union[str, int]] = None,
    layer: Optional[str] = None,
    present_threshold: Optional[float] = None,
    vsync_period: Optional[float] = None,
    refresh_rate: Optional[float] = None,
    sf_rules: Optional[str] = None,
    layer_name: Optional[str] = None,
    gfxinfo_drop_flagged: bool = False,
    macrobenchmark: Optional[str] = None,
    marker: Union[str, Sequence[str]] = (),
    window: Union[str, Sequence[str]] = (),
) -> Dict[str, Any]:
    """The analysis options as the extension module takes them (unknown names are a TypeError here)."""
    return {
        "process": process,
        "layer": layer,
        "present_threshold": present_threshold,
        "vsync_period": vsync_period,
        "refresh_rate": refresh_rate,
        "sf_rules": sf_rules,
        "layer_name": layer_name,
        "gfxinfo_drop_flagged": gfxinfo_drop_flagged,
        "macrobenchmark": macrobenchmark,
        "marker": [marker] if isinstance(marker, str) else list(marker),
        "window": [window] if isinstance(window, str) else list(window),
    }


def analyze(path: PathLike, **options: Any) -> Dict[str, Any]:
    """The report of one trace or text capture: exactly the object ``ftl analyze --format json`` prints.

    For a Perfetto trace: ``trace`` (file, device, clock, span_ms, ...), ``vsync`` (period_ns, refresh_rate_hz),
    ``processes`` (Perfetto's android_frame_timeline_metric per process), ``totals``, ``layers`` (per-layer
    frames, jank counts, frame-time percentiles in ms, pacing: avg_surface_fps, jank_count, max_frame_delay,
    PerfDog jank / stutter, FPS per second, sm), ``diagnostics`` and, when asked, ``macrobenchmark``. For a text
    capture: ``capture``, ``layers`` (pacing per layer / window / pid; gfxinfo's ``jank_tracker``),
    ``processes``, ``diagnostics``. Units are in the field names (``_ns``, ``_ms``, ``_hz``, ``_pct``).
    """
    return json.loads(_ftl.analyze_json(os.fspath(path), _options(**options)))


def report_tables(path: PathLike, **options: Any) -> Dict[str, pl.DataFrame]:
    """The report of :func:`analyze` as the tables ``ftl analyze --format parquet -o DIR`` writes, by name:
    ``trace``, ``processes``, ``jank_types``, ``layers``, ``diagnostics`` for a trace; ``capture``, ``layers``,
    ``jank_tracker``, ``diagnostics`` for a text capture."""
    return dict(_ftl.report_tables(os.fspath(path), _options(**options)))


def frames(path: PathLike, display_frames: bool = False, **options: Any) -> pl.DataFrame:
    """One row per frame: the table of ``ftl frames`` (same columns and dtypes as its Parquet output).

    For a Perfetto trace, one row per actual SurfaceFrame (app frame) joined with its expected slice and the
    DisplayFrame that presented it: ``pid``, ``process_name``, ``layer_name``, tokens, ``expected_start_ns`` /
    ``expected_end_ns`` / ``actual_start_ns`` / ``actual_end_ns`` and ``present_ns`` (ns, trace clock),
    ``dur_ns`` (actual duration, ns; -1 if the frame never ended), ``overrun_ns`` (actual − expected end, ns; >
    0 finished late), ``app_vsync_delay_ns``, ``present_interval_ns`` (ns), Perfetto's labels (``present_type``,
    ``jank_type``, ``jank_tag``, ``jank_severity_type``, ``prediction_type``), ``dropped``, the re-derived labels
    and whether they agree, ``attribution`` and — with the app's atrace sections — the UI thread / RenderThread
    times (ns) and ``late_stage``. With ``display_frames=True``: one row per actual DisplayFrame instead.

    For a text capture, one row per frame with the times it records (ns) and its layer / window / pid.

    Example — frame durations per layer, in ms::

        df = ftl.frames("trace.perfetto-trace")
        df.group_by("layer_name").agg((pl.col("dur_ns") / 1e6).median().alias("median_ms"))
    """
    return _ftl.frames(os.fspath(path), display_frames, _options(**options))


def slices(path: PathLike, timeline: str) -> pl.DataFrame:
    """Perfetto's ``expected_frame_timeline_slice`` (``timeline="expected"``) or
    ``actual_frame_timeline_slice`` (``timeline="actual"``) table, row for row: the table of ``ftl slices``.
    ``ts`` and ``dur`` are ns on the trace clock (``dur`` -1 for a slice that never ended). Perfetto traces only
    (a text capture raises :class:`NoFrameTimelineError`)."""
    return _ftl.slices(os.fspath(path), timeline)


def table(
    path: PathLike,
    name: str,
    *,
    window: Union[str, Sequence[str]] = (),
    marker: Union[str, Sequence[str]] = (),
) -> pl.DataFrame:
    """A Perfetto stdlib table of the app's frames, row for row, with Perfetto's column names: the table of
    ``ftl table NAME``; ``name`` is one of :data:`TABLES` (``android_frames``, ``android_frame_stats``,
    ``android_jank_cuj``, ...). Times and durations are ns on the trace clock; trace processor's row ids are
    replaced by what the trace says (upid → pid, utid → tid). Needs the app's atrace sections
    (Choreographer#doFrame, DrawFrame): without them the tables have no rows, except ``android_frames_overrun``.
    ``window`` / ``marker`` restrict the frames as in :func:`analyze`."""
    as_list = lambda v: [v] if isinstance(v, str) else list(v)  # noqa: E731
    return _ftl.table(os.fspath(path), name, as_list(window), as_list(marker))


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def triage(
    paths: Union[PathLike, Iterable[PathLike]],
    jobs: Optional[int] = None,
    by: str = "trace",
    *,
    sort: str = "janky_pct",
    recursive: bool = False,
    out_dir: Optional[PathLike] = None,
    **options: Any,
) -> pl.DataFrame:
    """Fleet triage on this machine: the ranked triage table of ``ftl batch --format parquet``, one row per
    input (``by="process"`` / ``"layer"``: per input × process / layer).

    ``paths`` are files, directories (their files recognised by content; ``recursive=True`` descends) or globs.
    ``jobs`` traces are analysed at once (default: one per core). Rows are ranked by ``sort`` (a numeric column,
    largest first; ties by path; failed inputs last). A file that cannot be analysed is a row whose ``status``
    is the error (``"ok"`` otherwise), never an exception. Columns: ``trace`` (unique name), ``path``,
    ``source``, ``device``, ``refresh_rate_hz``, ``span_ms``, ``frames``, ``janky_frames``, ``janky_pct``,
    ``dropped_frames``, ``worst_layer``, ``frame_dur_ms_p99`` / ``overrun_ms_p99`` (ms), pacing columns,
    ``agreement_pct``, ``diagnostics_count``, ``truncated_at_byte``, ``file_bytes``, ``status``.

    With ``out_dir``, writes what ``ftl batch -o DIR --format parquet`` writes: ``triage.parquet`` and every
    input's frames as ``frames/trace=NAME/part-0.parquet`` (text captures: ``series/trace=NAME/...``).
    For a cluster, see :func:`ftl.dask.triage`.
    """
    return _ftl.triage(
        _paths(paths),
        jobs,
        by,
        sort,
        recursive,
        None if out_dir is None else os.fspath(out_dir),
        _options(**options),
    )


analyze.__doc__ = (analyze.__doc__ or "") + _OPTIONS_DOC + _ERRORS_DOC
report_tables.__doc__ = (report_tables.__doc__ or "") + _OPTIONS_DOC + _ERRORS_DOC
frames.__doc__ = (frames.__doc__ or "") + _OPTIONS_DOC + _ERRORS_DOC
slices.__doc__ = (slices.__doc__ or "") + _ERRORS_DOC
table.__doc__ = (table.__doc__ or "") + _ERRORS_DOC
triage.__doc__ = (triage.__doc__ or "") + _OPTIONS_DOC
