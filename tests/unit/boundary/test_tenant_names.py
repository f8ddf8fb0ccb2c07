"""`tenant_id_for` strips a tenant name like `--tenant`, and refuses what is not text."""

from __future__ import annotations

import pytest

from redstring import tenant_id_for
from redstring.client.tenants import parse_tenant
from redstring.errors import InvalidArgumentError


def test_tenant_id_for_strips_like_the_command_line() -> None:
    assert tenant_id_for(" acme \n") == tenant_id_for("acme") == parse_tenant(" acme ")


@pytest.mark.parametrize(("name", "value"), [("name", b"acme"), ("name", "acme\ud800")])
def test_tenant_id_for_refuses_what_is_not_text(name: str, value: object) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        tenant_id_for(value)  # type: ignore[arg-type]
    assert caught.value.name == name
