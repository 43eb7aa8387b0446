"""The session workflow state machine that gates the Assistant's tool calls.

A session starts in RESOLVING (no target yet). A successful resolve or read
establishes a target and moves it to READING. A successful write moves it to
VERIFYING, where further writes and a final answer are refused until the
model has looked again. ``complete_verification`` then returns it to READING.

Invariants (tested in ``tests/reference/test_ref_fsm.py``):

* reads, resolves and user input are never blocked, in any state;
* no write without a target: a write is blocked in RESOLVING;
* no second write before verification: a write is blocked in VERIFYING,
  however many times it is attempted;
* no final answer about an unverified write: ``check_final_answer`` refuses
  in VERIFYING until a read has followed the write.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

from reference_impl.agentcapabilities.tool_call import ToolCallKind

__all__ = [
    "RECOVERY_TTL",
    "FSMBlockedError",
    "PendingRecovery",
    "SessionFSM",
    "SessionState",
    "ToolKind",
]


class SessionState(str, Enum):
    """Where a session is in its resolve / read / write / verify workflow."""

    RESOLVING = "RESOLVING"  # no validated target yet: discover first
    READING = "READING"  # a target is known: reads and writes allowed
    WRITING = "WRITING"  # transitional; nothing in this module enters it
    VERIFYING = "VERIFYING"  # a write happened: read before writing or answering


# The chat package's name for a tool call's kind, as upstream's fsm.go aliases it.
ToolKind = ToolCallKind

RECOVERY_TTL = timedelta(minutes=10)

_NO_TARGET = (
    "POLICY_BLOCKED: state-changing tools require a validated target/resource context. Establish the target "
    "from current context or available tools, then retry only if the requested action still fits."
)
_UNVERIFIED_WRITE = (
    "POLICY_BLOCKED: the previous state-changing tool call still needs current verification evidence. Gather "
    "evidence for the changed target, then retry only if another action is still needed."
)
_UNVERIFIED_ANSWER = (
    "POLICY_BLOCKED: the previous state-changing tool call needs current verification evidence before "
    "responding about the result."
)


class FSMBlockedError(Exception):
    """Raised when the state machine refuses a tool call or a final answer.

    Every block is recoverable: the model can always unblock itself by
    reading. ``tool_name`` is empty and ``tool_kind`` is None for a refused
    final answer.
    """

    code = "FSM_BLOCKED"

    def __init__(
        self,
        state: SessionState,
        reason: str,
        tool_name: str = "",
        tool_kind: ToolKind | None = None,
    ) -> None:
        self.state = state
        self.tool_name = tool_name
        self.tool_kind = tool_kind
        self.reason = reason
        self.recoverable = True
        super().__init__(self._message())

    def _message(self) -> str:
        if self.tool_name:
            return (
                f"FSM blocked tool '{self.tool_name}' ({self.tool_kind}) "
                f"in state {self.state.value}: {self.reason}"
            )
        return f"FSM blocked in state {self.state.value}: {self.reason}"


@dataclass
class PendingRecovery:
    """A blocked call the model may recover from by succeeding with the same tool."""

    recovery_id: str
    error_code: str
    tool: str
    created_at: datetime
    attempts: int = 1


def _now(now: datetime | None) -> datetime:
    return now if now is not None else datetime.now(timezone.utc)


class SessionFSM:
    """Per-session workflow state; see the module docstring for the rules."""

    def __init__(self) -> None:
        self.state = SessionState.RESOLVING
        self.wrote_this_episode = False
        self.read_after_write = False
        self.consecutive_verify_blocks = 0
        self.last_write_tool = ""
        self.last_read_tool = ""
        self.pending_recoveries: dict[str, PendingRecovery] = {}
        self._recovery_ids = itertools.count(1)

    def __repr__(self) -> str:
        return (
            f"SessionFSM(state={self.state.value}, wrote_this_episode={self.wrote_this_episode}, "
            f"read_after_write={self.read_after_write}, "
            f"consecutive_verify_blocks={self.consecutive_verify_blocks})"
        )

    # -- gates ---------------------------------------------------------------

    def check_tool(self, kind: ToolKind, tool_name: str) -> None:
        """Raise FSMBlockedError if a call of ``kind`` may not run now.

        Only writes are ever refused: in RESOLVING (no target yet) and in
        VERIFYING. In VERIFYING the write stays refused even after a read has
        set ``read_after_write``: the caller must first call
        ``complete_verification``. Each refusal in VERIFYING increments
        ``consecutive_verify_blocks``, which is telemetry only; no count of
        attempts ever lets the write through.
        """
        kind = ToolKind(kind)
        if kind is not ToolKind.WRITE:
            return
        if self.state is SessionState.RESOLVING:
            raise FSMBlockedError(self.state, _NO_TARGET, tool_name, kind)
        if self.state is SessionState.VERIFYING:
            self.consecutive_verify_blocks += 1
            raise FSMBlockedError(self.state, _UNVERIFIED_WRITE, tool_name, kind)

    def check_final_answer(self) -> None:
        """Raise FSMBlockedError while a write has not been followed by a read."""
        if self.state is SessionState.VERIFYING and not self.read_after_write:
            raise FSMBlockedError(self.state, _UNVERIFIED_ANSWER)

    # -- transitions ---------------------------------------------------------

    def on_tool_success(self, kind: ToolKind, tool_name: str) -> None:
        """Advance the workflow after a call of ``kind`` succeeded."""
        kind = ToolKind(kind)
        if kind is ToolKind.USER_INPUT:
            return
        if kind is ToolKind.WRITE:
            self.state = SessionState.VERIFYING
            self.wrote_this_episode = True
            self.read_after_write = False
            self.last_write_tool = tool_name
            return
        # resolve or read
        self.last_read_tool = tool_name
        if self.state is SessionState.RESOLVING:
            self.state = SessionState.READING
        elif self.state is SessionState.VERIFYING:
            self.read_after_write = True
            self.consecutive_verify_blocks = 0

    def complete_verification(self) -> None:
        """VERIFYING with a read after the write -> READING; otherwise nothing.

        ``wrote_this_episode`` stays set: it records that the session wrote
        at all, not that a verification cycle is open.
        """
        if self.state is SessionState.VERIFYING and self.read_after_write:
            self.state = SessionState.READING
            self.read_after_write = False
            self.consecutive_verify_blocks = 0

    def reset(self) -> None:
        """Back to RESOLVING with all tracking cleared (a session clear)."""
        self.state = SessionState.RESOLVING
        self.wrote_this_episode = False
        self.read_after_write = False
        self.consecutive_verify_blocks = 0
        self.last_write_tool = ""
        self.last_read_tool = ""

    def reset_keep_progress(self) -> None:
        """Clear verification tracking but keep an established target.

        VERIFYING becomes READING; RESOLVING and READING are kept as they are,
        so a session that never found a target still cannot write.
        """
        if self.state is SessionState.VERIFYING:
            self.state = SessionState.READING
        self.wrote_this_episode = False
        self.read_after_write = False
        self.consecutive_verify_blocks = 0

    # -- pending recoveries --------------------------------------------------

    def track_pending_recovery(self, error_code: str, tool: str, now: datetime | None = None) -> str:
        """Record a blocked call of ``tool`` and return its recovery id."""
        created = _now(now)
        self._drop_expired(created)
        recovery_id = f"{tool}-{next(self._recovery_ids)}"
        self.pending_recoveries[recovery_id] = PendingRecovery(recovery_id, error_code, tool, created)
        return recovery_id

    def check_recovery_success(self, tool: str, now: datetime | None = None) -> PendingRecovery | None:
        """Clear and return the oldest live pending recovery for ``tool``, if any.

        Recoveries older than RECOVERY_TTL are dropped first and never returned.
        """
        self._drop_expired(_now(now))
        for recovery_id, pending in self.pending_recoveries.items():
            if pending.tool == tool:
                del self.pending_recoveries[recovery_id]
                return pending
        return None

    def _drop_expired(self, now: datetime) -> None:
        cutoff = now - RECOVERY_TTL
        expired = [rid for rid, p in self.pending_recoveries.items() if p.created_at < cutoff]
        for recovery_id in expired:
            del self.pending_recoveries[recovery_id]
