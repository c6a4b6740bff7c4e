"""Progress and cancellation for long tool calls, for pack code running in the call's worker thread.

A tool is a plain ``def``; the server runs it in a worker thread. :func:`report_progress` sends the
client a ``notifications/progress`` when the client asked for progress (the request's
``_meta.progressToken``), and does nothing otherwise (no token, or outside a call). :func:`checkpoint`
raises :class:`CallCancelled` once the client has cancelled the call (``notifications/cancelled``):
the SDK cancels the request's task, but a worker thread cannot be interrupted, so the tool unwinds at
its next checkpoint instead and the call ends then. Cancellation is cooperative: work between two
checkpoints (a native parse, say) runs to its end.

Neither function blocks the tool for long nor raises into it (except :class:`CallCancelled`, which is
the point): a notification is handed to the event loop and sent from there; when too many wait, the
newest are dropped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

log = logging.getLogger("rhwp_mcp_host")


class CallCancelled(Exception):
    """The client cancelled the tool call: raised by :func:`checkpoint` to unwind the tool.

    Not an error the client sees: the protocol answers a cancelled request with nothing at all.
    A tool should let it propagate (an ``except Exception`` that swallows it keeps the call running).
    """

    def __init__(self) -> None:
        super().__init__("the client cancelled this call")


@dataclass
class _CallState:
    """What the host keeps for one running call (set by the server's middleware)."""

    cancelled: threading.Event = field(default_factory=threading.Event)
    send: Callable[[float, float | None, str | None], None] | None = None
    """Hands one notification to the event loop; None when the client gave no progress token."""
    offset: float = 0.0
    """Added to what the current stage reports: the protocol wants one token's progress to only grow,
    and a call has stages that count on their own scales (a download's bytes, then the tool's phases)."""
    last: float | None = None
    """The last value sent, if any."""

    def next_stage(self) -> None:
        """What is reported from now on counts on from just past the last value sent (a stage
        may start at 0)."""
        if self.last is not None:
            self.offset = self.last + 1


_active: ContextVar[_CallState | None] = ContextVar("rhwp_mcp_call", default=None)


def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Tell the client how far the current call is: ``done`` of ``total`` (both in any unit, ``done``
    increasing from one report to the next), with an optional short ``message`` naming the phase.

    A no-op when the client asked for no progress or outside a tool call; never raises."""
    state = _active.get()
    if state is None or state.send is None:
        return
    shown = state.offset + float(done)
    if state.last is not None and shown <= state.last:
        return  # never backwards (or standing still): the client would be told nothing new
    state.last = shown
    try:
        state.send(shown, None if total is None else state.offset + float(total), message)
    except Exception as exc:  # never into the tool: progress is a courtesy
        log.debug("a progress notification was not sent: %s", exc)


def checkpoint() -> None:
    """Raise :class:`CallCancelled` if the client cancelled the current call; else return at once.

    Call it between the phases of long work (and in long loops). Outside a tool call it does nothing."""
    state = _active.get()
    if state is not None and state.cancelled.is_set():
        raise CallCancelled()


def phase(step: int, steps: int, message: str) -> None:
    """Start phase ``step`` (from 0) of ``steps`` of a long call: stop here if the client cancelled
    (:func:`checkpoint`), else tell it which phase begins (:func:`report_progress`, if it asked)."""
    checkpoint()
    report_progress(step, steps, message)


def is_cancelled() -> bool:
    """Whether the client cancelled the current call (for a tool that cleans up before unwinding)."""
    state = _active.get()
    return state is not None and state.cancelled.is_set()


__all__ = ["CallCancelled", "checkpoint", "is_cancelled", "phase", "report_progress"]
