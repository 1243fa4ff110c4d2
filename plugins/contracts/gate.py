"""What every ingest gate promises (:class:`plugins.protocols.IngestGate`).

A gate answers each message with None (admitted) or a non-empty reason (refused), the same
answer for the same message every time, whatever the role, and without changing the message.
"""

from __future__ import annotations

import abc

from plugins.gates.base import GateMessage
from plugins.protocols import IngestGate

MESSAGES = (
    GateMessage("m1", "user", "I moved to Porto last spring and work as a nurse."),
    GateMessage("m2", "assistant", "Thanks!"),
    GateMessage("m3", "user", "ok"),
    GateMessage("m4", "tool", '{"results": []}'),
    GateMessage("m5", "system", ""),
    GateMessage("m6", "user", "Good morning! " * 200),
)


class IngestGateContract(abc.ABC):
    """Subclass and implement :meth:`make_gate`; set :attr:`ADMITTED` to a message your gate
    lets through and :attr:`REFUSED` to one it refuses (None if it refuses nothing)."""

    ADMITTED: GateMessage = MESSAGES[0]
    REFUSED: GateMessage | None = None

    @abc.abstractmethod
    def make_gate(self) -> IngestGate:
        """Return a new gate."""

    def test_is_an_ingest_gate_with_a_name(self) -> None:
        gate = self.make_gate()
        assert isinstance(gate, IngestGate)
        assert isinstance(gate.name, str)
        assert gate.name.strip()

    async def test_answers_none_or_a_reason_the_same_every_time(self) -> None:
        gate = self.make_gate()
        for message in (*MESSAGES, self.ADMITTED, *([self.REFUSED] if self.REFUSED else [])):
            first = await gate.refuse(message)
            assert first is None or (isinstance(first, str) and first.strip()), first
            assert await gate.refuse(message) == first
            assert await self.make_gate().refuse(message) == first

    async def test_admits_what_it_admits_and_refuses_what_it_refuses(self) -> None:
        gate = self.make_gate()
        assert await gate.refuse(self.ADMITTED) is None
        if self.REFUSED is not None:
            assert await gate.refuse(self.REFUSED)
