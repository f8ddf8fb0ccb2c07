"""The in-memory event log passes the event-log compliance suite, and events round-trip JSON."""

from __future__ import annotations

from redstring.domain.events import event_from_json, event_to_json
from redstring.events.in_memory import InMemoryEventLog
from redstring.ports.event_log import EventLog
from redstring.testing.event_log import EventLogCompliance, one_of_each_kind
from tests.factories import DEFAULT_TENANT


class TestInMemoryEventLog(EventLogCompliance):
    async def make_log(self) -> EventLog:
        return InMemoryEventLog()


def test_every_event_kind_round_trips_through_json() -> None:
    for event in one_of_each_kind(DEFAULT_TENANT):
        assert event_from_json(event_to_json(event)) == event
