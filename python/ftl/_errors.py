"""The exceptions ftl raises for a file it cannot use. Every one names the file (``path``) and the cause in its
message, the one line ``ftl`` prints on the command line."""

from __future__ import annotations

from typing import Optional


class TraceError(Exception):
    """A file ftl cannot analyse. ``path`` is the file (``None`` for an internal error); the message is the
    file and the cause in one line."""

    path: Optional[str] = None


class ReadError(TraceError, OSError):
    """The file could not be opened or read (missing, permission denied, a directory). ``errno`` is the
    operating system's error number when there is one."""

    errno: Optional[int] = None  # type: ignore[assignment]


class NotATraceError(TraceError):
    """The bytes are neither a Perfetto trace nor a text capture ftl reads: an empty file, random bytes, a
    broken packet framing, a file of unknown content. ``offset`` (bytes into the decompressed stream) and
    ``packet`` (0-based TracePacket index) say where decoding failed, when it got that far."""

    offset: Optional[int] = None
    packet: Optional[int] = None


class NoFrameTimelineError(TraceError):
    """A readable file without SurfaceFlinger FrameTimeline data: a Perfetto trace recorded without the
    ``android.surfaceflinger.frametimeline`` data source (or before Android 12), or a text capture given to a
    function that needs FrameTimeline slices (``ftl.slices``, ``ftl.table``). ``packets`` is the number of
    TracePackets read."""

    packets: Optional[int] = None
    truncated_at: Optional[int] = None


class TruncatedTraceError(NoFrameTimelineError):
    """A trace cut off before any FrameTimeline event: the file ends inside the packet starting at byte
    ``truncated_at``. (A truncated trace that has FrameTimeline events is analysed up to where it ends.)"""


class CaptureError(TraceError):
    """A text capture (``dumpsys SurfaceFlinger --latency``, ``dumpsys gfxinfo``, logcat) that cannot be used;
    ``line`` is the 1-based line at fault."""

    line: Optional[int] = None


class OutputError(TraceError, OSError):
    """An output file or directory could not be written."""


__all__ = [
    "TraceError",
    "ReadError",
    "NotATraceError",
    "NoFrameTimelineError",
    "TruncatedTraceError",
    "CaptureError",
    "OutputError",
]
