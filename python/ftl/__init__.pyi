"""Type stubs of ftl: Android frame timing (Perfetto FrameTimeline traces, dumpsys / logcat captures) as polars
DataFrames. Units are in column and option names: _ns nanoseconds (trace clock), _ms milliseconds, _hz hertz,
_pct percent, _bytes bytes."""

import os
from typing import Any, Dict, Iterable, List, Literal, Optional, Sequence, TypedDict, Union

from typing_extensions import Unpack

import polars as pl

from ._errors import (
    CaptureError as CaptureError,
    NoFrameTimelineError as NoFrameTimelineError,
    NotATraceError as NotATraceError,
    OutputError as OutputError,
    ReadError as ReadError,
    TraceError as TraceError,
    TruncatedTraceError as TruncatedTraceError,
)

__version__: str
PathLike = Union[str, os.PathLike[str]]
SfRules = Literal["a12", "a13", "a14", "a14qpr2", "a15", "a16"]

#: Names accepted by :func:`table`.
TABLES: List[str]

class AnalysisOptions(TypedDict, total=False):
    """The analysis options (the options of `ftl analyze`, `_` for `-`)."""

    process: Union[str, int]  # keep processes whose name contains this, or this pid
    layer: str  # keep layers matching this glob
    present_threshold: float  # ms, default 2.0
    vsync_period: float  # ms
    refresh_rate: float  # Hz
    sf_rules: SfRules
    layer_name: str  # the layer of a `dumpsys SurfaceFlinger --latency` capture
    gfxinfo_drop_flagged: bool
    macrobenchmark: str  # package whose FrameTimingMetric to compute
    marker: Union[str, Sequence[str]]  # atrace section / CUJ names
    window: Union[str, Sequence[str]]  # "START..END", bounds in ms ("1500ms"), s ("4s") or seconds

def analyze(path: PathLike, **options: Unpack[AnalysisOptions]) -> Dict[str, Any]:
    """The `ftl analyze --format json` object of a trace or text capture."""

def report_tables(path: PathLike, **options: Unpack[AnalysisOptions]) -> Dict[str, pl.DataFrame]:
    """The tables of `ftl analyze --format parquet -o DIR`, by name."""

def frames(
    path: PathLike, display_frames: bool = False, **options: Unpack[AnalysisOptions]
) -> pl.DataFrame:
    """One row per SurfaceFrame (or DisplayFrame, or capture frame): the table of `ftl frames`; times in ns."""

def slices(path: PathLike, timeline: Literal["expected", "actual"]) -> pl.DataFrame:
    """Perfetto's expected/actual_frame_timeline_slice table (`ftl slices`); ts and dur in ns."""

def table(
    path: PathLike,
    name: str,
    *,
    window: Union[str, Sequence[str]] = (),
    marker: Union[str, Sequence[str]] = (),
) -> pl.DataFrame:
    """A Perfetto stdlib frames table (`ftl table NAME`), one of TABLES; times in ns."""

def triage(
    paths: Union[PathLike, Iterable[PathLike]],
    jobs: Optional[int] = None,
    by: Literal["trace", "process", "layer"] = "trace",
    *,
    sort: str = "janky_pct",
    recursive: bool = False,
    out_dir: Optional[PathLike] = None,
    **options: Unpack[AnalysisOptions],
) -> pl.DataFrame:
    """The ranked triage table of `ftl batch` (and its Parquet layout under out_dir)."""
