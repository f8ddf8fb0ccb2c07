"""The pure core: types, ids, normalisation, scoring. No I/O, no asyncio."""
