"""SessionFSM: every transition, the gates, recovery expiry, and a stateful model test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from reference_impl.ai.chat.fsm import (
    RECOVERY_TTL,
    FSMBlockedError,
    SessionFSM,
    SessionState,
    ToolKind,
)

NON_WRITE = [ToolKind.RESOLVE, ToolKind.READ, ToolKind.USER_INPUT]
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)


def fsm_in(state: SessionState) -> SessionFSM:
    fsm = SessionFSM()
    if state is SessionState.RESOLVING:
        return fsm
    fsm.on_tool_success(ToolKind.RESOLVE, "pulse_query")
    if state is SessionState.VERIFYING:
        fsm.on_tool_success(ToolKind.WRITE, "pulse_control")
    elif state is SessionState.WRITING:
        fsm.state = SessionState.WRITING
    return fsm


# -- enums and constants -----------------------------------------------------


def test_session_state_values_equal_names_and_are_str() -> None:
    assert [s.name for s in SessionState] == ["RESOLVING", "READING", "WRITING", "VERIFYING"]
    for s in SessionState:
        assert s.value == s.name
        assert isinstance(s, str) and s == s.name


def test_tool_kind_str_is_wire_name() -> None:
    assert [str(k) for k in ToolKind] == ["resolve", "read", "write", "user_input"]
    assert ToolKind("user_input") is ToolKind.USER_INPUT


def test_recovery_ttl_is_ten_minutes() -> None:
    assert RECOVERY_TTL == timedelta(minutes=10)


def test_new_fsm_starts_resolving_with_nothing_tracked() -> None:
    fsm = SessionFSM()
    assert fsm.state is SessionState.RESOLVING
    assert (fsm.wrote_this_episode, fsm.read_after_write, fsm.consecutive_verify_blocks) == (False, False, 0)
    assert (fsm.last_write_tool, fsm.last_read_tool) == ("", "")


# -- check_tool ---------------------------------------------------------------


@pytest.mark.parametrize("state", list(SessionState))
@pytest.mark.parametrize("kind", NON_WRITE)
def test_non_writes_never_blocked(state: SessionState, kind: ToolKind) -> None:
    fsm = fsm_in(state)
    for _ in range(5):
        fsm.check_tool(kind, "some_tool")
    assert fsm.state is state
    assert fsm.consecutive_verify_blocks == 0


def test_write_blocked_in_resolving_with_error_fields() -> None:
    fsm = SessionFSM()
    with pytest.raises(FSMBlockedError) as info:
        fsm.check_tool(ToolKind.WRITE, "pulse_control")
    err = info.value
    assert err.state is SessionState.RESOLVING
    assert err.tool_name == "pulse_control"
    assert err.tool_kind is ToolKind.WRITE
    assert err.recoverable is True
    assert err.code == "FSM_BLOCKED"
    assert err.reason.startswith("POLICY_BLOCKED: state-changing tools require a validated target/resource context.")
    assert "pulse_control" in str(err) and "RESOLVING" in str(err)
    assert fsm.consecutive_verify_blocks == 0  # only VERIFYING blocks are counted


def test_every_block_is_worded_as_upstreams_fsm_go_words_it() -> None:
    # internal/ai/chat/fsm.go at c313a80da: FSMBlockedError.Error() and the three reasons
    blocks = []
    for state, check in (
        (SessionState.RESOLVING, lambda fsm: fsm.check_tool(ToolKind.WRITE, "pulse_control")),
        (SessionState.VERIFYING, lambda fsm: fsm.check_tool(ToolKind.WRITE, "pulse_control")),
        (SessionState.VERIFYING, lambda fsm: fsm.check_final_answer()),
    ):
        with pytest.raises(FSMBlockedError) as info:
            check(fsm_in(state))
        blocks.append(str(info.value))
    assert blocks == [
        "FSM blocked tool 'pulse_control' (write) in state RESOLVING: POLICY_BLOCKED: state-changing tools "
        "require a validated target/resource context. Establish the target from current context or available "
        "tools, then retry only if the requested action still fits.",
        "FSM blocked tool 'pulse_control' (write) in state VERIFYING: POLICY_BLOCKED: the previous "
        "state-changing tool call still needs current verification evidence. Gather evidence for the changed "
        "target, then retry only if another action is still needed.",
        "FSM blocked in state VERIFYING: POLICY_BLOCKED: the previous state-changing tool call needs current "
        "verification evidence before responding about the result.",
    ]


@pytest.mark.parametrize("state", [SessionState.READING, SessionState.WRITING])
def test_write_allowed_with_a_target(state: SessionState) -> None:
    fsm_in(state).check_tool(ToolKind.WRITE, "pulse_control")


def test_write_blocked_in_verifying_counts_but_never_waives() -> None:
    fsm = fsm_in(SessionState.VERIFYING)
    for attempt in range(1, 21):
        with pytest.raises(FSMBlockedError) as info:
            fsm.check_tool(ToolKind.WRITE, "pulse_control")
        assert info.value.state is SessionState.VERIFYING
        assert fsm.consecutive_verify_blocks == attempt
        assert fsm.state is SessionState.VERIFYING


def test_write_still_blocked_after_read_until_complete_verification() -> None:
    fsm = fsm_in(SessionState.VERIFYING)
    fsm.on_tool_success(ToolKind.READ, "pulse_read")
    with pytest.raises(FSMBlockedError):
        fsm.check_tool(ToolKind.WRITE, "pulse_control")
    fsm.complete_verification()
    fsm.check_tool(ToolKind.WRITE, "pulse_control")


def test_check_tool_accepts_wire_name() -> None:
    with pytest.raises(FSMBlockedError):
        SessionFSM().check_tool("write", "x")  # type: ignore[arg-type]


# -- check_final_answer --------------------------------------------------------


@pytest.mark.parametrize("state", [SessionState.RESOLVING, SessionState.READING, SessionState.WRITING])
def test_final_answer_allowed_outside_verifying(state: SessionState) -> None:
    fsm_in(state).check_final_answer()


def test_final_answer_blocked_until_read_after_write() -> None:
    fsm = fsm_in(SessionState.VERIFYING)
    with pytest.raises(FSMBlockedError) as info:
        fsm.check_final_answer()
    assert info.value.state is SessionState.VERIFYING
    assert (info.value.tool_name, info.value.tool_kind) == ("", None)
    assert info.value.code == "FSM_BLOCKED" and info.value.recoverable
    fsm.on_tool_success(ToolKind.USER_INPUT, "pulse_question")
    with pytest.raises(FSMBlockedError):
        fsm.check_final_answer()
    fsm.on_tool_success(ToolKind.RESOLVE, "pulse_query")
    fsm.check_final_answer()


# -- on_tool_success -----------------------------------------------------------


@pytest.mark.parametrize("kind", [ToolKind.RESOLVE, ToolKind.READ])
def test_resolve_or_read_in_resolving_moves_to_reading(kind: ToolKind) -> None:
    fsm = SessionFSM()
    fsm.on_tool_success(kind, "pulse_query")
    assert fsm.state is SessionState.READING
    assert fsm.last_read_tool == "pulse_query"
    assert not fsm.read_after_write


@pytest.mark.parametrize("kind", [ToolKind.RESOLVE, ToolKind.READ])
def test_resolve_or_read_in_verifying_marks_read_after_write(kind: ToolKind) -> None:
    fsm = fsm_in(SessionState.VERIFYING)
    with pytest.raises(FSMBlockedError):
        fsm.check_tool(ToolKind.WRITE, "pulse_control")
    assert fsm.consecutive_verify_blocks == 1
    fsm.on_tool_success(kind, "pulse_read")
    assert fsm.state is SessionState.VERIFYING
    assert fsm.read_after_write is True
    assert fsm.consecutive_verify_blocks == 0
    assert fsm.last_read_tool == "pulse_read"


def test_read_in_reading_stays_reading() -> None:
    fsm = fsm_in(SessionState.READING)
    fsm.on_tool_success(ToolKind.READ, "pulse_metrics")
    assert fsm.state is SessionState.READING and not fsm.read_after_write


@pytest.mark.parametrize("state", list(SessionState))
def test_write_from_any_state_moves_to_verifying(state: SessionState) -> None:
    fsm = fsm_in(state)
    fsm.read_after_write = True
    fsm.on_tool_success(ToolKind.WRITE, "pulse_file_edit")
    assert fsm.state is SessionState.VERIFYING
    assert fsm.wrote_this_episode is True
    assert fsm.read_after_write is False
    assert fsm.last_write_tool == "pulse_file_edit"


@pytest.mark.parametrize("state", list(SessionState))
def test_user_input_changes_nothing(state: SessionState) -> None:
    fsm = fsm_in(state)
    before = vars(fsm).copy()
    fsm.on_tool_success(ToolKind.USER_INPUT, "pulse_question")
    assert vars(fsm) == before


# -- complete_verification, reset, reset_keep_progress -------------------------


def test_complete_verification_after_read() -> None:
    fsm = fsm_in(SessionState.VERIFYING)
    fsm.on_tool_success(ToolKind.READ, "pulse_read")
    fsm.complete_verification()
    assert fsm.state is SessionState.READING
    assert fsm.read_after_write is False
    assert fsm.wrote_this_episode is True


@pytest.mark.parametrize("state", list(SessionState))
def test_complete_verification_without_read_is_a_no_op(state: SessionState) -> None:
    fsm = fsm_in(state)
    before = vars(fsm).copy()
    fsm.complete_verification()
    assert vars(fsm) == before


@pytest.mark.parametrize("state", list(SessionState))
def test_reset_clears_everything(state: SessionState) -> None:
    fsm = fsm_in(state)
    fsm.consecutive_verify_blocks = 3
    fsm.read_after_write = True
    fsm.reset()
    assert fsm.state is SessionState.RESOLVING
    assert (fsm.wrote_this_episode, fsm.read_after_write, fsm.consecutive_verify_blocks) == (False, False, 0)
    assert (fsm.last_write_tool, fsm.last_read_tool) == ("", "")
    with pytest.raises(FSMBlockedError):
        fsm.check_tool(ToolKind.WRITE, "pulse_control")


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (SessionState.RESOLVING, SessionState.RESOLVING),
        (SessionState.READING, SessionState.READING),
        (SessionState.VERIFYING, SessionState.READING),
    ],
)
def test_reset_keep_progress(state: SessionState, expected: SessionState) -> None:
    fsm = fsm_in(state)
    fsm.consecutive_verify_blocks = 2
    fsm.reset_keep_progress()
    assert fsm.state is expected
    assert (fsm.wrote_this_episode, fsm.read_after_write, fsm.consecutive_verify_blocks) == (False, False, 0)


# -- pending recoveries ---------------------------------------------------------


def test_recovery_cleared_by_later_success_of_same_tool() -> None:
    fsm = SessionFSM()
    rid = fsm.track_pending_recovery("FSM_BLOCKED", "pulse_control", now=T0)
    assert isinstance(rid, str) and rid
    assert fsm.check_recovery_success("pulse_read", now=T0) is None
    found = fsm.check_recovery_success("pulse_control", now=T0 + timedelta(minutes=1))
    assert found is not None
    assert (found.recovery_id, found.error_code, found.tool, found.created_at) == (rid, "FSM_BLOCKED", "pulse_control", T0)
    assert fsm.check_recovery_success("pulse_control", now=T0 + timedelta(minutes=1)) is None


def test_recovery_ids_are_distinct_and_cleared_oldest_first() -> None:
    fsm = SessionFSM()
    first = fsm.track_pending_recovery("FSM_BLOCKED", "pulse_control", now=T0)
    second = fsm.track_pending_recovery("STRICT_RESOLUTION", "pulse_control", now=T0 + timedelta(seconds=1))
    assert first != second
    assert fsm.check_recovery_success("pulse_control", now=T0).recovery_id == first  # type: ignore[union-attr]
    assert fsm.check_recovery_success("pulse_control", now=T0).recovery_id == second  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("age", "alive"),
    [
        (timedelta(minutes=9, seconds=59), True),
        (RECOVERY_TTL, True),
        (RECOVERY_TTL + timedelta(microseconds=1), False),
        (timedelta(hours=2), False),
    ],
)
def test_recovery_expires_after_ttl(age: timedelta, alive: bool) -> None:
    fsm = SessionFSM()
    fsm.track_pending_recovery("FSM_BLOCKED", "pulse_control", now=T0)
    found = fsm.check_recovery_success("pulse_control", now=T0 + age)
    assert (found is not None) is alive
    assert fsm.pending_recoveries == {}


def test_expired_recoveries_dropped_when_tracking_new_ones() -> None:
    fsm = SessionFSM()
    fsm.track_pending_recovery("FSM_BLOCKED", "pulse_control", now=T0)
    fsm.track_pending_recovery("FSM_BLOCKED", "pulse_docker", now=T0 + timedelta(minutes=11))
    assert [p.tool for p in fsm.pending_recoveries.values()] == ["pulse_docker"]


def test_recovery_defaults_to_current_time() -> None:
    fsm = SessionFSM()
    fsm.track_pending_recovery("FSM_BLOCKED", "pulse_control")
    assert fsm.check_recovery_success("pulse_control") is not None


# -- stateful model test ---------------------------------------------------------

TOOL_NAMES = st.sampled_from(["pulse_query", "pulse_read", "pulse_control", "pulse_question", "new_tool"])
KINDS = st.sampled_from(list(ToolKind))


class FSMModel(RuleBasedStateMachine):
    """Drives SessionFSM with random calls and checks it against a small model.

    The model tracks three facts: whether a target has been established,
    whether a write awaits verification, and whether a read followed it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.fsm = SessionFSM()
        self.target = False
        self.pending = False
        self.read_since_write = False
        self.blocks = 0

    def write_allowed(self) -> bool:
        return self.target and not self.pending

    def succeed(self, kind: ToolKind) -> None:
        if kind is ToolKind.WRITE:
            self.target, self.pending, self.read_since_write = True, True, False
        elif kind is not ToolKind.USER_INPUT:
            self.target = True
            if self.pending:
                self.read_since_write, self.blocks = True, 0

    @rule(kind=KINDS, name=TOOL_NAMES)
    def check_tool(self, kind: ToolKind, name: str) -> None:
        if kind is not ToolKind.WRITE:
            self.fsm.check_tool(kind, name)  # reads never blocked: must not raise
            return
        allowed = self.write_allowed()
        try:
            self.fsm.check_tool(kind, name)
        except FSMBlockedError as err:
            assert not allowed, "write blocked although a target exists and nothing awaits verification"
            assert err.code == "FSM_BLOCKED" and err.recoverable and err.tool_kind is ToolKind.WRITE
            assert err.state is self.fsm.state
            if self.pending:
                self.blocks += 1
        else:
            assert allowed, "write allowed without a target or before verification"

    @rule(kind=KINDS, name=TOOL_NAMES)
    def gated_call(self, kind: ToolKind, name: str) -> None:
        """What the loop does: check, and report success only if allowed."""
        try:
            self.fsm.check_tool(kind, name)
        except FSMBlockedError:
            assert kind is ToolKind.WRITE and not self.write_allowed()
            if self.pending:
                self.blocks += 1
            return
        self.fsm.on_tool_success(kind, name)
        self.succeed(kind)

    @rule(kind=KINDS, name=TOOL_NAMES)
    def on_tool_success(self, kind: ToolKind, name: str) -> None:
        self.fsm.on_tool_success(kind, name)
        self.succeed(kind)

    @rule(attempts=st.integers(min_value=1, max_value=12))
    def hammer_write(self, attempts: int) -> None:
        """Repeated blocked writes never waive the block."""
        first_blocked = not self.write_allowed()
        for _ in range(attempts):
            try:
                self.fsm.check_tool(ToolKind.WRITE, "pulse_control")
            except FSMBlockedError:
                assert first_blocked
                if self.pending:
                    self.blocks += 1
            else:
                assert not first_blocked, "a repeated write got through a block"

    @rule()
    def check_final_answer(self) -> None:
        allowed = not (self.pending and not self.read_since_write)
        try:
            self.fsm.check_final_answer()
        except FSMBlockedError as err:
            assert not allowed, "final answer refused although nothing is unverified"
            assert err.state is SessionState.VERIFYING and err.tool_kind is None
        else:
            assert allowed, "final answer allowed about an unverified write"

    @rule()
    def complete_verification(self) -> None:
        self.fsm.complete_verification()
        if self.pending and self.read_since_write:
            self.pending, self.read_since_write, self.blocks = False, False, 0

    @rule()
    def reset(self) -> None:
        self.fsm.reset()
        self.target = self.pending = self.read_since_write = False
        self.blocks = 0

    @rule()
    def reset_keep_progress(self) -> None:
        self.fsm.reset_keep_progress()
        self.pending = self.read_since_write = False
        self.blocks = 0

    @invariant()
    def state_matches_model(self) -> None:
        fsm = self.fsm
        assert fsm.state is not SessionState.WRITING
        assert (fsm.state is SessionState.RESOLVING) == (not self.target)
        assert (fsm.state is SessionState.VERIFYING) == self.pending
        assert fsm.read_after_write == (self.pending and self.read_since_write)
        assert fsm.consecutive_verify_blocks == self.blocks

    @invariant()
    def verifying_implies_a_write(self) -> None:
        if self.fsm.state is SessionState.VERIFYING:
            assert self.fsm.wrote_this_episode


FSMModel.TestCase.settings = settings(max_examples=200, stateful_step_count=30, deadline=None)
TestFSMModel = FSMModel.TestCase
