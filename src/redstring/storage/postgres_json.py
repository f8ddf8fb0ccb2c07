"""JSON text for a `jsonb` column that reads back with every float still a float.

`jsonb` keeps numbers as `numeric` and prints them positionally, so a float
Python writes in exponent form (`1e+308`, `1e+16`) reads back without a
decimal point, and `json.loads` makes it an `int` (B143). Writing such a
number positionally with a `.0` keeps it a float across the round trip;
`numeric` holds every finite double exactly in that form.
"""

from __future__ import annotations

import re
from decimal import Decimal

#: A JSON string (skipped whole) or a number in exponent form.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?[eE][+-]?\d+')


def jsonb_text(json_text: str) -> str:
    """`json_text` with every exponent-form number rewritten positionally, as a float."""
    return _TOKEN.sub(_positional, json_text)


def _positional(match: re.Match[str]) -> str:
    token = match.group()
    if token.startswith('"'):
        return token
    text = format(Decimal(token), "f")
    return text if "." in text else text + ".0"
